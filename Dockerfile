# tokenmeter image: the gateway by default (`tokenmeter serve`), the simulator with `sim`, any other command too.
# Build: docker build -t tokenmeter .   Run: docker run -p 8080:8080 -e TOKENMETER_UPSTREAM=http://host:8000/v1 tokenmeter
# scripts/check-image-steps.sh runs these same steps without Docker; test/observability/packaging.test.ts keeps
# its file lists and this file in step.

# Current Node LTS. The slim variant: no compiler toolchain is needed (no dependency has an install script).
ARG NODE_IMAGE=node:24-bookworm-slim

# Build stage: compile TypeScript with the dev dependencies, which never reach the final image.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json ./
# --ignore-scripts: `prepare` would run tsc before the sources are copied in.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
COPY plugins ./plugins
COPY loadgen ./loadgen
# Only the runtime code is copied, so tsc compiles src, plugins and loadgen (tests and bench stay out).
RUN npx tsc -p tsconfig.json

# Final stage: production dependencies and the compiled JavaScript only.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` runs tsc, a dev dependency that is not installed here; dist/ comes from the build.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY loadgen/data ./loadgen/data
COPY --from=build /src/dist ./dist
# Records (TOKENMETER_RECORDS) go to /data, a volume the unprivileged user can write.
RUN mkdir -p /data /etc/tokenmeter && chown node:node /data
# Commands run in /data, not in root-owned /app: `bench` writes its records (and --save-result its result) into
# the working directory by default, which the unprivileged user could not do in /app (EACCES).
WORKDIR /data

# Configuration through the environment (see docs/configuration.md): TOKENMETER_UPSTREAM, TOKENMETER_UPSTREAM_KEY_ENV,
# TOKENMETER_CONFIG (a mounted file, e.g. /etc/tokenmeter/config.json), TOKENMETER_RECORDS, TOKENMETER_LOG_LEVEL,
# TOKENMETER_GATEWAY_KEYS. Inside a container the gateway must listen on every interface to be reachable.
ENV TOKENMETER_HOST=0.0.0.0 \
    TOKENMETER_PORT=8080
EXPOSE 8080
VOLUME ["/data"]

# The unprivileged user of the Node images (uid 1000).
USER node

# /healthz answers while the process serves. The slim image has no curl: Node's fetch does the probe.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.TOKENMETER_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

ENTRYPOINT ["node", "/app/bin/tokenmeter.js"]
CMD ["serve"]
