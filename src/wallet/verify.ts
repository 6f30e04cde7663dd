import type { WalletEntry } from "./types.js";

/**
 * Checks a wallet's ledger against its balance (pure; entries in any order): the entries are
 * numbered 1…n without gaps or repeats, no reference appears twice, every amount is a non-zero
 * integer, each entry's `balanceAfter` is the running sum up to it and never below zero, and the
 * balance equals the sum of all entries. Returns every problem found; none means the ledger holds.
 */
export function verifyLedger(entries: readonly WalletEntry[], balanceKopecks: number): string[] {
  const problems: string[] = [];
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  const refs = new Set<string>();
  let sum = 0;
  sorted.forEach((e, i) => {
    if (e.seq !== i + 1) problems.push(`entry ${e.id}: seq ${e.seq} where ${i + 1} was expected`);
    if (refs.has(e.ref)) problems.push(`entry ${e.id}: ref ${e.ref} appears twice`);
    refs.add(e.ref);
    if (!Number.isSafeInteger(e.amountKopecks) || e.amountKopecks === 0) {
      problems.push(`entry ${e.id}: amount ${e.amountKopecks} is not a non-zero integer`);
    }
    sum += e.amountKopecks;
    if (e.balanceAfter !== sum)
      problems.push(`entry ${e.id}: balanceAfter ${e.balanceAfter}, running sum ${sum}`);
    if (e.balanceAfter < 0) problems.push(`entry ${e.id}: balanceAfter ${e.balanceAfter} is below zero`);
  });
  if (sum !== balanceKopecks) problems.push(`balance ${balanceKopecks} is not the sum of the entries ${sum}`);
  if (balanceKopecks < 0) problems.push(`balance ${balanceKopecks} is below zero`);
  return problems;
}
