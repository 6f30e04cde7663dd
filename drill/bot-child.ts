/**
 * The bot the fault drills run and kill: the production composition root (`startApp`) with the
 * production leases (10 s for a claimed job and for a taken outgoing message), so the drills
 * measure how soon work a killed process held is taken over. `DRILL_LIFT_LIMITS=1` lifts the pace
 * of the bot's outgoing queue (the fuzz drill measures input handling, not Telegram's 30
 * messages/s ceiling). SIGTERM/SIGINT stop it cleanly.
 */
import { startApp } from "../src/main.js";

const lifted = process.env.DRILL_LIFT_LIMITS === "1";
const app = await startApp(process.env, {
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
