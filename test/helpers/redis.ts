import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { inject } from "vitest";

/** URL of the private Redis started for this test run. */
export function testRedisUrl(): string {
  return inject("redisUrl");
}

/** A key prefix no other test uses, so tests sharing the private Redis never see each other's data. */
export function uniquePrefix(name = "t"): string {
  return `test:${name}:${randomUUID().slice(0, 8)}:`;
}

/** A fresh client on the private test Redis; the caller quits it. */
export function testRedis(): Redis {
  return new Redis(testRedisUrl(), { maxRetriesPerRequest: 3 });
}

/**
 * Commands the test Redis has run so far (INFO's `total_commands_processed`: the commands a Lua
 * script runs count, and so does this INFO call itself).
 */
export async function commandsProcessed(redis: Redis): Promise<number> {
  return Number((await redis.info("stats")).match(/total_commands_processed:(\d+)/)?.[1]);
}

/** A command as ioredis hands it to the connection: its name (lower case) and arguments. */
export interface SentCommand {
  name: string;
  args: unknown[];
}

/**
 * Calls `watch` with every command `client` sends from now on (to the real test Redis, which
 * still answers them): for tests that check what a piece of code asks of Redis.
 */
export function watchCommands(client: object, watch: (command: SentCommand) => void): void {
  type Send = (command: SentCommand, ...rest: unknown[]) => unknown;
  const target = client as { sendCommand: Send };
  const send = target.sendCommand.bind(client);
  target.sendCommand = (command, ...rest) => {
    watch(command);
    return send(command, ...rest);
  };
}
