/**
 * The bot the fault drills run and kill: the production composition root (`startApp`) with the
 * job lease shortened from 60 s to 8 s, so work a killed process had claimed is taken over within
 * seconds and a drill settles faster. `DRILL_LIFT_LIMITS=1` also lifts the pace of the bot's
 * outgoing queue (the fuzz drill measures input handling, not Telegram's 30 messages/s ceiling).
 * SIGTERM/SIGINT stop it cleanly.
 */
import { startApp } from "../src/main.js";

const lifted = process.env.DRILL_LIFT_LIMITS === "1";
const app = await startApp(process.env, {
  engine: { leaseMs: 8_000 }, // LEASE_MS in drill/lib.ts
  ...(lifted
    ? {
        outgoingPace: { globalPerSecond: 100_000, chatPerSecond: 10_000 },
      }
    : {}),
});
const stop = () => {
  app.stop(10_000).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
