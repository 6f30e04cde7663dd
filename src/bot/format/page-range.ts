/**
 * The `paged` variable of a list's heading ("1–5 of 7"): "no" when one page holds the whole list,
 * and the heading then gives the count alone ("(1)", not "(1–1 of 1)").
 */
export function paged(offset: number, shown: number, total: number): "yes" | "no" {
  return offset === 0 && shown >= total ? "no" : "yes";
}
