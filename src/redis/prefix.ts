/**
 * The cluster form of a key prefix: its name in a hash tag, so every key under it lands in one
 * slot (`shopbot:` → `{shopbot}:`, `shop:a:` → `{shop:a}:`). A prefix that has a tag already is
 * kept as it is.
 */
export function hashTagged(prefix: string): string {
  if (/\{[^{}]+\}/.test(prefix)) return prefix;
  const name = prefix.replace(/:+$/, "");
  return `{${name || "shopbot"}}:`;
}
