// "Did you mean ...?" for flags, models and paths: the known names closest to what the user typed.

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] ?? 0;
}

/**
 * Known names within a distance proportional to their length, closest first; names containing the query (or
 * contained in it) count as close too, so `qwen` finds `Qwen/Qwen2.5-7B-Instruct`.
 */
export function nearestNames(query: string, known: readonly string[], limit = 3): string[] {
  const q = query.toLowerCase();
  if (q === '') return [];
  return known
    .map((name) => {
      const n = name.toLowerCase();
      const contains = n.includes(q) || q.includes(n);
      return { name, distance: contains ? 0.5 : editDistance(q, n) };
    })
    .filter(({ name, distance }) => distance <= Math.max(2, Math.floor(Math.max(q.length, name.length) / 3)))
    .sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name))
    .slice(0, limit)
    .map(({ name }) => name);
}
