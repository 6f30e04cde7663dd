import { Composer, type Context, type Middleware, type MiddlewareFn, type NextFunction } from "grammy";

/**
 * A grammY `Composer` whose middleware runs as a flat list.
 *
 * grammY's own Composer nests: every `use` (and so every `command`, `callbackQuery`, `on`,
 * `filter`) wraps the chain so far in two more `async` functions, and every filter builds a new
 * Composer per update to decide. An update that reaches the 60th handler of the shop therefore
 * waits inside some 150 suspended async functions, each with its promise, closure and context,
 * for as long as that handler waits on Telegram, Redis or the reseller. Under a rush those frames
 * were most of the bot's memory in flight and a good part of its CPU per update.
 *
 * Here `use` appends to a list and `middleware()` walks it: a middleware that passes an update
 * on (a filter that does not match, `pass`) returns the next one's promise and leaves no frame
 * behind; a predicate is called directly, without a Composer per update. Everything else is
 * grammY's: `command`, `callbackQuery`, `on`, `filter`, `errorBoundary` and friends work as
 * documented, and the composer a method returns can still be extended after registration.
 */
export class FlatComposer<C extends Context> extends Composer<C> {
  private readonly list: MiddlewareFn<C>[];
  private readonly run: MiddlewareFn<C>;

  constructor(...middleware: Array<Middleware<C>>) {
    super();
    const list = middleware.map(toFn);
    this.list = list;
    this.run = (ctx, next) => {
      const step = (i: number): Promise<void> => {
        const mw = list[i];
        if (mw === undefined) return next();
        let called = false;
        const onward: NextFunction = () => {
          if (called) return Promise.reject(new Error("`next` already called before!"));
          called = true;
          return step(i + 1);
        };
        try {
          // The same promise when the middleware returned one (no new promise per level).
          return Promise.resolve(mw(ctx, onward)) as Promise<void>;
        } catch (err) {
          return Promise.reject(err);
        }
      };
      return step(0);
    };
  }

  override middleware(): MiddlewareFn<C> {
    return this.run;
  }

  override use(...middleware: Array<Middleware<C>>): Composer<C> {
    const composer = new FlatComposer<C>(...middleware);
    this.list.push(composer.middleware());
    return composer;
  }

  override branch(
    predicate: (ctx: C) => boolean | Promise<boolean>,
    trueMiddleware: Middleware<C> | Array<Middleware<C>>,
    falseMiddleware: Middleware<C> | Array<Middleware<C>>,
  ): Composer<C> {
    const yes = toFn(Array.isArray(trueMiddleware) ? new FlatComposer(...trueMiddleware) : trueMiddleware);
    const no = toFn(Array.isArray(falseMiddleware) ? new FlatComposer(...falseMiddleware) : falseMiddleware);
    return this.use((ctx, next) => {
      const ok = predicate(ctx);
      if (ok instanceof Promise) return ok.then((v) => (v ? yes : no)(ctx, next));
      return (ok ? yes : no)(ctx, next);
    });
  }
}

/** A middleware object is asked for its function at every call, as grammY does: it may change. */
function toFn<C extends Context>(mw: Middleware<C>): MiddlewareFn<C> {
  return typeof mw === "function" ? mw : (ctx, next) => mw.middleware()(ctx, next);
}
