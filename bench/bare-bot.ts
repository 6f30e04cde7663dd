/**
 * The framework's floor for the throughput benchmark: a bare grammY bot (runner, per-chat
 * sequentialize, in-memory sessions) that answers every update with one sendMessage.
 */
import { run, sequentialize } from "@grammyjs/runner";
import { Bot, type Context, type SessionFlavor, session } from "grammy";

type Ctx = Context & SessionFlavor<{ count: number }>;
const bot = new Bot<Ctx>(process.env.BOT_TOKEN ?? "", { client: { apiRoot: process.env.TELEGRAM_API_ROOT } });
bot.use(sequentialize((ctx) => ctx.chat?.id.toString()));
bot.use(session({ initial: () => ({ count: 0 }) }));
bot.on("message", async (ctx) => {
  ctx.session.count += 1;
  await ctx.reply(`reply ${ctx.session.count}`);
});
const runner = run(bot);
process.stdout.write("bare bot running\n");
const stop = () => {
  void runner.stop().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
