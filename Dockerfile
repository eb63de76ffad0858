# One image for every service of the repository (migrations, platform-bridge, agent-gateway): the compose file
# picks the command. TypeScript runs through tsx, so there is no build step. NODE_IMAGE names another image of
# the same Node (the stand-in built by scripts/compose-smoke where no registry is reachable).
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE}

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    CHECKPOINT_DISABLE=1
WORKDIR /app

# Manifests first so that the dependency layer is cached across source changes. The root postinstall
# generates the Prisma clients, which needs the schemas and the generate script.
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/db-tools/package.json packages/db-tools/
COPY packages/http-kit/package.json packages/http-kit/
COPY packages/telemetry/package.json packages/telemetry/
COPY packages/db-tools/bin packages/db-tools/bin
COPY apps/platform-bridge/package.json apps/platform-bridge/
COPY apps/agent-gateway/package.json apps/agent-gateway/
COPY prisma prisma
RUN npm ci --include=dev --no-audit --no-fund && npm cache clean --force

COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
COPY apps apps
COPY scripts scripts
# the MCP guide, served at /docs/mcp (MCP_DOCUMENTATION_URL)
COPY docs/mcp.md docs/mcp.md

# The embedded database is never used in containers (PLATFORM_DATABASE_URL is always set there), but keep a
# writable data directory for the non-root user anyway.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node

EXPOSE 4000 3000
CMD ["node", "--import", "tsx", "apps/platform-bridge/src/main.ts"]
