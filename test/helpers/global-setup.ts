import type { TestProject } from "vitest/node";
import { startPrivateRedis } from "./private-redis.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/**
 * Starts one private redis-server (no persistence, free port) for the whole run, or uses
 * TEST_REDIS_URL when the binary is missing. Tests isolate themselves by key prefix.
 */
export default async function setup(project: TestProject) {
  const redis = await startPrivateRedis();
  project.provide("redisUrl", redis.url);
  return async () => {
    await redis.stop();
  };
}
