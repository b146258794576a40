# One image for the API and the worker (the compose file picks the mode).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
ENV NODE_ENV=production HOST=0.0.0.0
EXPOSE 3000
ENTRYPOINT ["node_modules/.bin/tsx", "src/main.ts"]
CMD ["api"]
