// Sharing a table's row cap among sources (users, their files) so that one with many rows cannot crowd out the rest.

/**
 * Integer shares of `cap` among parties holding `counts` items: each gets all its items or an equal share, whichever is
 * less, and what parties under the share leave is shared among the rest (water-filling); the few left over after equal
 * shares go one each to the first (by position) of the parties still wanting. A party's share never grows as parties
 * are added after it, so what is cut to a share while parties are still being counted is never wanted later.
 */
export function fairShares(counts: readonly number[], cap: number): number[] {
  const shares = counts.map(() => 0);
  const count = (i: number): number => counts[i] ?? 0;
  let left = Math.max(0, Math.floor(cap));
  const bySize = counts.flatMap((c, i) => (c > 0 ? [i] : [])).sort((a, b) => count(a) - count(b) || a - b);
  // Smallest first, a party wanting no more than an equal share of what is left takes all it has.
  let k = 0;
  for (; k < bySize.length; k++) {
    const i = bySize[k] as number;
    if (count(i) * (bySize.length - k) > left) break;
    shares[i] = count(i);
    left -= count(i);
  }
  // Each of the rest wants more than that: an equal share each, the remainder one each to the first of them.
  const rest = bySize.slice(k).sort((a, b) => a - b);
  const each = rest.length === 0 ? 0 : Math.floor(left / rest.length);
  let extra = left - each * rest.length;
  for (const i of rest) {
    shares[i] = each + (extra > 0 ? 1 : 0);
    extra -= 1;
  }
  return shares;
}
