import type { ChatState, EmulatorCore } from "./core.js";
import { Customer } from "./customer.js";
import { deleteTopic } from "./methods.js";
import type { ChatMessage, ChatUser, GroupChat } from "./types.js";

const DEFAULT_WAIT_MS = 10_000;

/**
 * A supergroup with the bot as an admin (it gets every member's message, as Telegram gives admin
 * bots): members write, reply and press buttons there; in a forum, in topics.
 */
export class Group implements GroupChat {
  private readonly members = new Map<number, Customer>();
  /** Reads the chat for tests (waitFor); never sends. */
  private readonly viewer: Customer;

  constructor(
    private readonly core: EmulatorCore,
    private readonly chat: ChatState,
    private readonly userChat: (init: Parameters<GroupChat["member"]>[0]) => ChatState,
  ) {
    this.viewer = new Customer(core, chat);
  }

  get id(): number {
    return this.chat.id;
  }

  get isForum(): boolean {
    return this.chat.group?.isForum ?? false;
  }

  member(init: Parameters<GroupChat["member"]>[0]): ChatUser {
    let member = this.members.get(init.id);
    if (!member) {
      member = new Customer(this.core, this.chat, this.userChat(init));
      this.members.set(init.id, member);
      this.chat.group?.members.add(init.id);
    }
    return member;
  }

  topics() {
    return [...(this.chat.group?.topics ?? new Map())].map(([threadId, t]) => ({
      threadId,
      name: t.name,
      deleted: t.deleted,
    }));
  }

  deleteTopic(threadId: number): void {
    deleteTopic(this.core, this.chat, threadId);
  }

  messages(threadId?: number): ChatMessage[] {
    const all = this.viewer.messages();
    if (threadId === undefined) return all;
    return all.filter((m) => (m.threadId ?? 0) === threadId);
  }

  waitFor(predicate: (msgs: ChatMessage[]) => boolean, timeoutMs = DEFAULT_WAIT_MS): Promise<ChatMessage[]> {
    return this.viewer.waitFor(predicate, timeoutMs);
  }

  async waitForBotMessage(
    match: string | RegExp,
    opts: { threadId?: number; timeoutMs?: number } = {},
  ): Promise<ChatMessage> {
    const matches = (m: ChatMessage) =>
      m.from === "bot" &&
      !m.deleted &&
      m.text !== undefined &&
      (opts.threadId === undefined || (m.threadId ?? 0) === opts.threadId) &&
      (typeof match === "string" ? m.text.includes(match) : match.test(m.text));
    const msgs = await this.viewer
      .waitFor((all) => all.some(matches), opts.timeoutMs ?? DEFAULT_WAIT_MS)
      .catch((error: Error) => {
        const where = opts.threadId === undefined ? "" : ` in topic ${opts.threadId}`;
        throw new Error(`No bot message matching ${String(match)}${where}: ${error.message}`);
      });
    return msgs.filter(matches).at(-1)!;
  }
}
