/**
 * The docs a new user reads first (issue 10.11): the README opens with the two commands, explains
 * `npm ci` and its expected warnings, and points to the contract in the repository; docs/API.md is
 * the shared contract, verbatim, plus Sluice's notes at the end.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (rel: string): string => readFileSync(fileURLToPath(new URL(`../${rel}`, import.meta.url)), 'utf8');
const readme = read('README.md');
const api = read('docs/API.md');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; files: string[] };

describe('README.md', () => {
  it('starts with npm start and npm test', () => {
    const first = /```sh\n([\s\S]*?)```/.exec(readme)![1]!.trim().split('\n');
    expect(first[0]).toMatch(/^npm start\b/);
    expect(first[1]).toMatch(/^npm test\b/);
  });

  it('explains npm ci and the warnings it prints', () => {
    expect(readme).toMatch(/npm ci/);
    expect(readme).toMatch(/EBADENGINE[\s\S]*nodejs-polars-linux-x64-gnu/);
    expect(readme).toMatch(/esbuild/);
  });

  it('says how to use Sluice from another project, with its apache-arrow peer', () => {
    expect(readme).toMatch(/npm pack/);
    expect(readme).toMatch(/file:/);
    expect(readme).toMatch(/peer dependency/);
  });

  it('points to the contract in the repository, not outside it', () => {
    expect(readme).toMatch(/\(docs\/API\.md\)/);
    expect(readme).not.toMatch(/\.\.\/shared/);
  });
});

describe('package.json', () => {
  it('builds on install (prepare), so npx sluice works in a fresh clone', () => {
    expect(pkg.scripts.prepare).toMatch(/npm run build/);
  });
  it('ships the job-file JSON Schema', () => {
    expect(pkg.files).toContain('schema');
  });
});

describe('docs/API.md', () => {
  // The shared contract sits next to the workspace's checkouts when there is one.
  const shared = ['../../shared/API.md', '../../../shared/API.md'].map((p) => fileURLToPath(new URL(p, import.meta.url))).find((p) => existsSync(p));

  it.skipIf(shared === undefined)('begins with the shared contract, verbatim', () => {
    const contract = readFileSync(shared!, 'utf8');
    expect(api.startsWith(contract)).toBe(true);
  });

  it("ends with where Sluice makes choices, pointing to the README", () => {
    const notes = api.slice(api.lastIndexOf('\n## '));
    expect(notes).toMatch(/choices/i);
    expect(notes).toMatch(/README/);
  });
});
