# The production image of the API and the worker (docker-compose.yml picks the mode): compiled
# JavaScript, the prebuilt workflow bundle and production dependencies only; no TypeScript at run time.

# Build stage: the installer of `npm start` and `npm test` (scripts/run.mjs: npm install, with the install
# scripts off as .npmrc says), then `npm run build` (dist/, see scripts/build.mjs), then the dev
# dependencies dropped. Only the npm packages: the image runs against PostgreSQL and Temporal servers of
# its own, so neither the embedded PostgreSQL's library step nor the Temporal CLI is needed.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY scripts ./scripts
RUN node scripts/run.mjs install
COPY . .
RUN node scripts/run.mjs build && npm prune --omit=dev --no-audit --no-fund

# Run stage: what the build stage kept, as the unprivileged node user.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0
COPY --from=build /app/package.json /app/package-lock.json /app/.npmrc ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
USER node
EXPOSE 3000
# `node dist/src/main.js api|worker|all`; the admin CLI is `node dist/src/cli/admin.js`.
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["api"]
