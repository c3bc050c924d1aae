/** What `p` rejects with, or null when it resolves: to assert on the typed error of a run that must fail. */
export function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => null,
    (err: unknown) => err,
  );
}
