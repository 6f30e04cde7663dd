/**
 * The bot for the throughput benchmark: the production composition root (`startApp`) with the
 * bot's own Telegram rate limiter lifted, so the figure shows the bot's cost rather than
 * Telegram's 30 messages/s ceiling (which the benchmark measures separately with `dist/main.js`).
 */
import { startApp } from "../src/main.js";

const app = await startApp(process.env, {
  outgoingLimits: {
    globalPerSecond: 100_000,
    globalBurst: 100_000,
    chatPerSecond: 10_000,
    chatBurst: 10_000,
  },
});
const stop = () => {
  app.stop(10_000).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
