import type { ConversationData, ConversationState, VersionedState } from "@grammyjs/conversations";
import type { SessionData } from "../context.js";

/** An abandoned flow is left when the customer comes back after this long. */
export const FLOW_IDLE_MS = 6 * 3600 * 1000;

/**
 * Where @grammyjs/conversations keeps the flows: the chat's session (read once per update,
 * written when changed), with the time of the last write beside them. Flows untouched for
 * {@link FLOW_IDLE_MS} read as none, and the update goes on as if no flow were open. (The
 * plugin's own `maxMillisecondsToWait` does the same by logging two clock reads per wait, which
 * every later update of the flow replays.)
 */
export function flowStorage() {
  return {
    read(ctx: { session: SessionData }): VersionedState<ConversationData> | undefined {
      const at = ctx.session.__flowsAt;
      if (at !== undefined && Date.now() - at >= FLOW_IDLE_MS) {
        ctx.session.__flows = undefined;
        ctx.session.__flowsAt = undefined;
      }
      return ctx.session.__flows as VersionedState<ConversationData> | undefined;
    },
    write(ctx: { session: SessionData }, state: VersionedState<ConversationData>): void {
      ctx.session.__flows = compactFlowState(state);
      ctx.session.__flowsAt = Date.now();
    },
    delete(ctx: { session: SessionData }): void {
      ctx.session.__flows = undefined;
      ctx.session.__flowsAt = undefined;
    },
  };
}

/**
 * The flows' state as it is stored in the chat's session. A flow's replay log keeps every update
 * the flow waited for, and the log is read, replayed and written back at each step. A button's
 * update carries the whole message the button was on (its text, entities and keyboard): most of
 * the log's size, of which the flows use only which message it was (kit.ts: its `message_id`, for
 * the next question to replace it, and its chat). The log keeps those and the message's date; the
 * rest is left out when the state is written. Typed answers are kept whole.
 */
export function compactFlowState(stored: VersionedState<ConversationData>): VersionedState<ConversationData> {
  let changed = false;
  const state: ConversationData = {};
  for (const [id, runs] of Object.entries(stored.state)) {
    const compacted = runs.map(compactRun);
    if (compacted.some((run, i) => run !== runs[i])) changed = true;
    state[id] = compacted;
  }
  return changed ? { ...stored, state } : stored;
}

function compactRun(run: ConversationState): ConversationState {
  let changed = false;
  const receive = run.replay.receive.map((op) => {
    const returnValue = compactUpdate(op.returnValue);
    if (returnValue === op.returnValue) return op;
    changed = true;
    return { ...op, returnValue };
  });
  return changed ? { ...run, replay: { ...run.replay, receive } } : run;
}

/** A button's update with its message cut down to what identifies it; anything else as it is. */
function compactUpdate(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("update_id" in value)) return value;
  const query = (value as { callback_query?: { message?: Record<string, unknown> } }).callback_query;
  const message = query?.message;
  if (!query || !message) return value;
  const { message_id, date, chat } = message;
  if (Object.keys(message).length <= 3) return value;
  return { ...value, callback_query: { ...query, message: { message_id, date, chat } } };
}
