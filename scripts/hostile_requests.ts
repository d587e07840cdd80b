/**
 * The hostile requests of the hardening issue, one kind per entry: deep and wide GraphQL, an unselective
 * filter, an endless chunked body, an oversized WebSocket frame, a burst of random keys. `scripts/attack.ts`
 * runs them one at a time while probing /health; `scripts/soak.ts` runs them after its soak to see whether
 * memory comes back down.
 */

export interface HostileTarget {
  readonly base: string;
  readonly key: string;
}

export interface HostileRequest {
  readonly name: string;
  /** Sends the request and gives a one-line summary of what came back. */
  readonly run: () => Promise<string>;
}

/** The hostile requests against `target`, each bounded by `timeoutMs`. */
export const hostileRequests = (target: HostileTarget, timeoutMs: number): ReadonlyArray<HostileRequest> => {
  const graphql = (query: string) =>
    fetch(`${target.base}/v1/graphql`, {
      method: "POST",
      headers: { apikey: target.key, "content-type": "application/json" },
      body: JSON.stringify({ query }),
      signal: AbortSignal.timeout(timeoutMs),
    });

  const summarize = async (response: Response) => {
    const text = await response.text();
    const message = text.length > 200 ? `${text.slice(0, 120)}… (${text.length} bytes)` : text;
    return `${response.status} ${message.replaceAll("\n", " ")}`;
  };

  const fragmentChain = (levels: number) => {
    const fragments = Array.from(
      { length: levels },
      (_, i) =>
        `fragment F${i} on block { ${i + 1 < levels ? `...F${i + 1} ...F${i + 1}` : "block_no hash"} }`,
    );
    return `{ block(limit: 1) { ...F0 } } ${fragments.join(" ")}`;
  };

  return [
    {
      name: "GraphQL fragment chain, 20 levels (each spreads the next twice)",
      run: async () => summarize(await graphql(fragmentChain(20))),
    },
    {
      name: "GraphQL 1,000 aliases of a sorted tx_out query, 1,000 rows each",
      run: async () =>
        summarize(
          await graphql(
            `{ ${
              Array.from(
                { length: 1000 },
                (_, i) => `a${i}: tx_out(limit: 1000, order_by: {value: desc}) { id value address }`,
              ).join(" ")
            } }`,
          ),
        ),
    },
    {
      name: "GraphQL 200 aliased __schema introspections",
      run: async () =>
        summarize(
          await graphql(
            `{ ${
              Array.from(
                { length: 200 },
                (_, i) => `s${i}: __schema { types { name fields { name type { name } } } }`,
              )
                .join(" ")
            } }`,
          ),
        ),
    },
    {
      name: "GraphQL unselective filter on tx_out (id > 0, sorted by value)",
      run: async () =>
        summarize(
          await graphql(
            `{ tx_out(where: {id: {_gt: 0}}, order_by: {value: desc}, limit: 100) { id value } }`,
          ),
        ),
    },
    {
      name: "chunked 100 MB JSON-RPC body",
      run: async () => {
        const chunk = new Uint8Array(1024 * 1024).fill(0x20);
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent++ >= 100) controller.close();
            else controller.enqueue(chunk);
          },
        });
        try {
          return summarize(
            await fetch(`${target.base}/v1/ogmios`, {
              method: "POST",
              headers: { apikey: target.key, "content-type": "application/json" },
              body,
              signal: AbortSignal.timeout(timeoutMs),
            }),
          );
        } catch (error) {
          return `connection ended after ${sent} MB: ${error instanceof Error ? error.message : error}`;
        }
      },
    },
    {
      name: "WebSocket frame of 32 MiB with a 16 MiB id",
      run: () =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`${target.base.replace("http", "ws")}/v1/ogmios?apikey=${target.key}`);
          const timer = setTimeout(() => (ws.close(), resolve("no answer in time")), timeoutMs);
          ws.onopen = () =>
            ws.send(
              JSON.stringify({
                jsonrpc: "2.0",
                method: "queryNetwork/tip",
                id: "x".repeat(16 * 1024 * 1024),
              }) +
                " ".repeat(16 * 1024 * 1024),
            );
          ws.onmessage = (e) => {
            clearTimeout(timer);
            ws.close();
            resolve(`a reply of ${String(e.data).length} bytes`);
          };
          ws.onclose = (e) => {
            clearTimeout(timer);
            resolve(`closed ${e.code} ${e.reason}`);
          };
        }),
    },
    {
      name: "1,000 random API keys",
      run: async () => {
        const statuses = new Map<number, number>();
        await Promise.all(Array.from({ length: 1000 }, async (_, i) => {
          const r = await fetch(`${target.base}/v1/key`, {
            headers: { apikey: `cds_${crypto.randomUUID().replaceAll("-", "")}${i}`.slice(0, 36) },
          });
          await r.body?.cancel();
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }));
        return [...statuses].map(([s, n]) => `${n} x ${s}`).join(", ");
      },
    },
  ];
};
