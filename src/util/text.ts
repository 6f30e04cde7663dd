/**
 * The first `max` UTF-16 units of `value`, one fewer when the cut would fall inside a surrogate
 * pair (an emoji): half an emoji is no valid text, and Telegram refuses the whole message for it.
 */
export function cutText(value: string, max: number): string {
  if (value.length <= max) return value;
  const last = value.charCodeAt(max - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
