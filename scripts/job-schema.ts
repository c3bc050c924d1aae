/**
 * Writes schema/job.schema.json, the JSON Schema of job files, from src/cli/job-schema.ts
 * (`npm run schema`; test/cli/job-json-schema.test.ts checks that the file is up to date).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jobJsonSchema } from '../src/cli/job-schema.js';

const path = fileURLToPath(new URL('../schema/job.schema.json', import.meta.url));
writeFileSync(path, `${JSON.stringify(jobJsonSchema(), null, 2)}\n`);
console.log(`wrote ${path}`);
