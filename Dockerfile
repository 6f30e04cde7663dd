# syntax=docker/dockerfile:1
# The shop bot as a container: `docker compose up` (see compose.yaml and README.md).

# ---- build: compile TypeScript to dist/ with the dev toolchain ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build

# ---- runtime: only dist/, locales/ and production dependencies ----
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY locales ./locales

# The files stay owned by root (read-only to the bot); the process runs as the unprivileged "node"
# user of the base image. The bot keeps its state in Redis; the one thing it writes to disk is the
# order archive (ARCHIVE_DIR=archive, i.e. /app/archive): writable by the bot, a volume in compose.yaml.
RUN mkdir -p /app/archive && chown node:node /app/archive
USER node

# The HTTP listener (HTTP_PORT): reseller and Telegram webhooks, /healthz, /readyz, /metrics.
EXPOSE 8080

# Liveness through the listener; the slim image has no curl, so Node's fetch does the request.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]

# Node runs directly (not through npm, which would not pass signals on). As PID 1 it still stops
# cleanly: dist/main.js installs SIGTERM/SIGINT handlers (finish in-flight work up to 10 s, exit 0;
# a second signal exits at once). compose.yaml adds `init: true` so a tiny init reaps zombies and
# forwards signals; with plain `docker run`, pass `--init` for the same. The young generation is
# capped at 8 MB per semi-space and glibc's malloc to two arenas, as `npm start` does (less peak
# memory at the same CPU, BENCHMARKS.md).
ENV MALLOC_ARENA_MAX=2
CMD ["node", "--max-semi-space-size=8", "dist/main.js"]
