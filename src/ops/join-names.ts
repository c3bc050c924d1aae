/**
 * Output names of a join's right columns (asofJoin and join alike): names taken are the left
 * names plus every kept right name that collides with nothing (those are never renamed). Each
 * colliding right column (its name equals a left name or an earlier kept right name), in order,
 * becomes `name + suffix`, or if that is taken `name + suffix + '_2'`, `'_3'`, … the first free
 * one; each new name is then taken. Complexity: O(columns) through sets.
 */
export function rightOutputNames(leftNames: readonly string[], rightNames: readonly string[], suffix: string): string[] {
  const taken = new Set(leftNames);
  const seen = new Set<string>();
  const collides = rightNames.map((name) => {
    const c = taken.has(name) || seen.has(name);
    seen.add(name);
    return c;
  });
  rightNames.forEach((name, i) => {
    if (!collides[i]) taken.add(name);
  });
  return rightNames.map((base, i) => {
    if (!collides[i]) return base;
    let name = base + suffix;
    for (let k = 2; taken.has(name); k++) name = `${base}${suffix}_${k}`;
    taken.add(name);
    return name;
  });
}
