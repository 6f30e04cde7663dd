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
 * Here `use` and `filter` append to a list and `middleware()` walks it: a filter that does not
 * match is skipped inside one loop (no closure, no promise), and a middleware that passes an
 * update on returns the next one's promise and leaves no frame behind. Everything else is
 * grammY's: `command`, `callbackQuery`, `on`, `filter`, `errorBoundary` and friends work as
 * documented, and the composer a method returns can still be extended after registration.
 */
export class FlatComposer<C extends Context> extends Composer<C> {
  private readonly list: Entry<C>[];
  private readonly run: MiddlewareFn<C>;

  constructor(...middleware: Array<Middleware<C>>) {
    super();
    const list: Entry<C>[] = middleware.map((mw) => ({ run: toFn(mw) }));
    this.list = list;
    // One object per update and list; the only closure made on the way is each called middleware's `next`.
    this.run = (ctx, next) => new Walk(list, ctx, next).from(0);
  }

  override middleware(): MiddlewareFn<C> {
    return this.run;
  }

  override use(...middleware: Array<Middleware<C>>): Composer<C> {
    const composer = new FlatComposer<C>(...middleware);
    this.list.push({ run: composer.middleware() });
    return composer;
  }

  // `on`, `command`, `callbackQuery`, `hears` and the rest are filters: their predicates are
  // checked in the loop above.
  override filter<D extends C>(
    predicate: (ctx: C) => ctx is D,
    ...middleware: Array<Middleware<D>>
  ): Composer<D>;
  override filter(
    predicate: (ctx: C) => MaybePromise<boolean>,
    ...middleware: Array<Middleware<C>>
  ): Composer<C>;
  override filter(
    predicate: (ctx: C) => MaybePromise<boolean>,
    ...middleware: Array<Middleware<C>>
  ): Composer<C> {
    const composer = new FlatComposer<C>(...middleware);
    this.list.push({ when: predicate, run: composer.middleware() });
    return composer;
  }

  override branch(
    predicate: (ctx: C) => MaybePromise<boolean>,
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

type MaybePromise<T> = T | Promise<T>;

/** One middleware of the list; `when`, if given, decides per update whether it runs at all. */
interface Entry<C extends Context> {
  when?: (ctx: C) => MaybePromise<boolean>;
  run: MiddlewareFn<C>;
}

/**
 * One update's way through one list. Filters that do not match are skipped in the loop of
 * `from`: no closure, no promise.
 */
class Walk<C extends Context> {
  constructor(
    private readonly list: readonly Entry<C>[],
    private readonly ctx: C,
    private readonly next: NextFunction,
  ) {}

  from(start: number): Promise<void> {
    const { list, ctx } = this;
    for (let i = start; i < list.length; i++) {
      const entry = list[i] as Entry<C>;
      if (entry.when) {
        let ok: MaybePromise<boolean>;
        try {
          ok = entry.when(ctx);
        } catch (err) {
          return Promise.reject(err);
        }
        if (ok instanceof Promise) {
          const at = i;
          return ok.then((v) => (v ? this.call(entry.run, at) : this.from(at + 1)));
        }
        if (!ok) continue;
      }
      return this.call(entry.run, i);
    }
    return this.next();
  }

  private call(mw: MiddlewareFn<C>, i: number): Promise<void> {
    let called = false;
    const onward: NextFunction = () => {
      if (called) return Promise.reject(new Error("`next` already called before!"));
      called = true;
      return this.from(i + 1);
    };
    try {
      // The same promise when the middleware returned one (no new promise per level).
      return Promise.resolve(mw(this.ctx, onward)) as Promise<void>;
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

/** A middleware object is asked for its function at every call, as grammY does: it may change. */
function toFn<C extends Context>(mw: Middleware<C>): MiddlewareFn<C> {
  return typeof mw === "function" ? mw : (ctx, next) => mw.middleware()(ctx, next);
}
