/**
 * The framework's floor for the throughput benchmark: a bare grammY bot (runner, per-chat
 * sequentialize, in-memory sessions) that answers every update with one sendMessage.
 * `BARE_SENDS` (e.g. "1,2,2,2,2,1,3") makes it send that many messages for a chat's first,
 * second, … update instead (the last one the answer, `reply <n>`): a bot making as many Bot API
 * calls per purchase as the shop, with nothing else to do.
 */
import { run, sequentialize } from "@grammyjs/runner";
import { Bot, type Context, type SessionFlavor, session } from "grammy";

type Ctx = Context & SessionFlavor<{ count: number }>;
const SENDS = (process.env.BARE_SENDS ?? "1").split(",").map(Number);
const bot = new Bot<Ctx>(process.env.BOT_TOKEN ?? "", { client: { apiRoot: process.env.TELEGRAM_API_ROOT } });
bot.use(sequentialize((ctx) => ctx.chat?.id.toString()));
bot.use(session({ initial: () => ({ count: 0 }) }));
bot.on("message", async (ctx) => {
  ctx.session.count += 1;
  const n = ctx.session.count;
  for (let i = 1; i < (SENDS[(n - 1) % SENDS.length] ?? 1); i++) await ctx.reply(`before reply ${n}`);
  await ctx.reply(`reply ${n}`);
});
const runner = run(bot);
process.stdout.write("bare bot running\n");
const stop = () => {
  void runner.stop().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
