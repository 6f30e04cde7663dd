import { webhookDrill } from "./webhooks.js";
import { LogBook } from "./lib.js";
const book = new LogBook();
const sink = book.sink("wh");
const t = Date.now();
const rows = await webhookDrill(sink);
console.log(rows, (Date.now()-t)/1000, sink.lines, sink.errorCount, sink.errors.slice(0,10), [...sink.secretHits]);
process.exit(0);
