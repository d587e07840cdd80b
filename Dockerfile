# The service image: what `npm install && npm start` does (README), in a container. Not built on the machine
# this was written on (no Docker engine there); scripts/cluster/main.ts runs the same command, environment and
# HAProxy configuration on one machine, and test/deployment_test.ts keeps this file in step with it.
FROM node:20-bookworm-slim
WORKDIR /app
# Deno comes from npm with the other dependencies (package-lock.json pins every version)
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/data DENO_DIR=/app/.deno NO_COLOR=1 MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
# the module graph compiled once at build, not at every start; data and cache belong to the unprivileged user
RUN node_modules/.bin/deno cache src/main.ts && mkdir -p /app/data && chown -R node:node /app/data /app/.deno
USER node
EXPOSE 3000
# liveness (/health); load balancers route by /ready (scripts/cluster/haproxy.cfg)
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start`'s command, run directly so SIGTERM (drain) reaches the service
CMD ["node_modules/.bin/deno", "run", "-A", "--v8-flags=--max-old-space-size=1024,--max-semi-space-size=8", "src/main.ts"]
