import { randomUUID } from "node:crypto";
import type { Api } from "grammy";
import type { Message } from "grammy/types";
import type { Logger } from "../logger.js";
import type { RedisClient } from "../redis/connect.js";
import { cutText } from "../util/text.js";
import { isNotForum, isTopicGone } from "./telegram-errors.js";

/** A forum topic of the operators' group, named by what it is for (`alert:stuck`, `customer:42`). */
export interface TopicRef {
  key: string;
  /** The topic's title when it has to be created (1–128 characters). */
  name: string;
}

/** Extra options of a send into the group (those of sendMessage / copyMessage). */
type SendOther = Parameters<Api["sendMessage"]>[2];
type CopyOther = Parameters<Api["copyMessage"]>[3];

/** How long one process may take to create a topic before another may try. */
const CREATE_LOCK_MS = 15_000;
/** How long a process waits for a topic another one is creating. */
const CREATE_WAIT_MS = 5_000;
const CREATE_POLL_MS = 100;

/** Deletes a topic's id only while it is still the one that failed (a newer one stays). */
const FORGET_IF_SAME = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const UNLOCK_IF_MINE = FORGET_IF_SAME;

/**
 * The operators' group (OPERATOR_CHAT_ID). In a forum every kind of message has its topic: it is
 * created once, the first time it is needed, and its id is kept in Redis (`P opchat:topic:<key>`),
 * so every process writes into the same topic; a lock (`…:lock`) lets one process create it while
 * the others wait for its id. A topic Telegram says is gone (deleted by an operator) is forgotten
 * and made again, once per send. In a group that is not a forum everything goes to the chat.
 */
export class OperatorChat {
  /** Whether the group is a forum: asked once per process (getChat). */
  private forum: boolean | undefined;

  constructor(
    private readonly deps: {
      api: Api;
      redis: RedisClient;
      chatId: number;
      prefix: string;
      logger: Logger;
    },
  ) {}

  get chatId(): number {
    return this.deps.chatId;
  }

  async isForum(): Promise<boolean> {
    if (this.forum === undefined) {
      const chat = await this.deps.api.getChat(this.deps.chatId);
      this.forum = chat.type === "supergroup" && chat.is_forum === true;
    }
    return this.forum;
  }

  private topicKey(key: string): string {
    return `${this.deps.prefix}opchat:topic:${key}`;
  }

  /** The thread id of a topic already made, without making one. */
  async knownTopic(key: string): Promise<number | undefined> {
    const raw = await this.deps.redis.get(this.topicKey(key));
    return raw ? Number(raw) : undefined;
  }

  /** The topic's thread id, created when there is none yet; undefined when the group is no forum. */
  async topic(ref: TopicRef): Promise<number | undefined> {
    if (!(await this.isForum())) return undefined;
    const known = await this.knownTopic(ref.key);
    if (known !== undefined) return known;
    const { redis } = this.deps;
    const key = this.topicKey(ref.key);
    const lock = `${key}:lock`;
    const token = randomUUID();
    const deadline = Date.now() + CREATE_WAIT_MS;
    while (Date.now() < deadline) {
      if (await redis.set(lock, token, "PX", CREATE_LOCK_MS, "NX")) {
        try {
          const made = await this.knownTopic(ref.key);
          if (made !== undefined) return made;
          let threadId: number;
          try {
            threadId = (await this.deps.api.createForumTopic(this.deps.chatId, cutText(ref.name, 128)))
              .message_thread_id;
          } catch (err) {
            if (!isNotForum(err)) throw err;
            this.forum = false;
            return undefined;
          }
          await redis.set(key, String(threadId));
          this.deps.logger.info({ topic: ref.key, threadId }, "operators' forum topic created");
          return threadId;
        } finally {
          await redis.eval(UNLOCK_IF_MINE, 1, lock, token).catch(() => undefined);
        }
      }
      await new Promise((r) => setTimeout(r, CREATE_POLL_MS));
      const made = await this.knownTopic(ref.key);
      if (made !== undefined) return made;
    }
    throw new Error(`the operators' topic ${ref.key} was not created in time`);
  }

  /** Forgets a topic Telegram says is gone (unless another process already made a new one). */
  private async forget(ref: TopicRef, threadId: number): Promise<void> {
    await this.deps.redis.eval(FORGET_IF_SAME, 1, this.topicKey(ref.key), String(threadId));
    this.deps.logger.warn({ topic: ref.key, threadId }, "operators' forum topic gone; making a new one");
  }

  /** Runs a send in the topic (when a forum); a topic found gone is made again and the send repeated once. */
  async inTopic<T>(
    ref: TopicRef | undefined,
    send: (threadId: number | undefined) => Promise<T>,
  ): Promise<T> {
    const threadId = ref ? await this.topic(ref) : undefined;
    try {
      return await send(threadId);
    } catch (err) {
      if (!ref || threadId === undefined || !isTopicGone(err)) throw err;
      await this.forget(ref, threadId);
      return send(await this.topic(ref));
    }
  }

  /** A text message into the group (into the topic of `ref` in a forum). */
  send(text: string, other: SendOther = {}, ref?: TopicRef): Promise<Message.TextMessage> {
    return this.inTopic(ref, (threadId) =>
      this.deps.api.sendMessage(this.deps.chatId, text, {
        ...other,
        ...(threadId !== undefined ? { message_thread_id: threadId } : {}),
      }),
    );
  }

  /** A copy of another chat's message into the group (into the topic of `ref` in a forum); its message id. */
  async copy(fromChatId: number, messageId: number, other: CopyOther = {}, ref?: TopicRef): Promise<number> {
    const sent = await this.inTopic(ref, (threadId) =>
      this.deps.api.copyMessage(this.deps.chatId, fromChatId, messageId, {
        ...other,
        ...(threadId !== undefined ? { message_thread_id: threadId } : {}),
      }),
    );
    return sent.message_id;
  }
}
