/**
 * Blockfrost's hosts routed to the service, for providers that take only a project id and build the URL
 * themselves (Mesh's `BlockfrostProvider(projectId)`: `https://cardano-<first 7 characters>.blockfrost.io/api/v0`):
 * the client process is configured as behind a corporate proxy, without touching the library: HTTPS_PROXY names
 * a local forward proxy that tunnels CONNECTs for `cardano-<network>.blockfrost.io:443` to a local TLS server
 * holding a certificate for that host from a throwaway CA (DENO_CERT, the client's extra trust root), and that
 * server forwards each request to the network's base URL on the service (`/api/v0/x` on
 * cardano-preprod.blockfrost.io to `/api/preprod/v0/x`). Other hosts are refused.
 */
import { join } from "node:path";
import { blockfrostBases } from "@schemas/blockfrost/api.ts";

export interface BlockfrostHostProxy {
  /** Environment for the client process: HTTPS_PROXY and DENO_CERT (and no NO_PROXY for those hosts). */
  readonly env: Record<string, string>;
  /** Hosts the tunnel was asked for, in order. */
  readonly connects: ReadonlyArray<string>;
  readonly close: () => Promise<void>;
}

const hosts: Record<string, keyof typeof blockfrostBases> = {
  "cardano-mainnet.blockfrost.io": "mainnet",
  "cardano-preprod.blockfrost.io": "preprod",
};

const openssl = async (cwd: string, ...args: Array<string>) => {
  const out = await new Deno.Command("openssl", { args, cwd, stdout: "null", stderr: "piped" }).output();
  if (out.code !== 0) throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
};

/** A throwaway CA and a certificate it signed for Blockfrost's hosts. */
const makeCertificates = async (dir: string) => {
  await openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=test proxy CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  );
  await openssl(
    dir,
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=blockfrost.io",
    "-keyout",
    "host.key",
    "-out",
    "host.csr",
  );
  await Deno.writeTextFile(
    join(dir, "host.ext"),
    `subjectAltName=${Object.keys(hosts).map((h) => `DNS:${h}`).join(",")}\nbasicConstraints=CA:FALSE\n`,
  );
  await openssl(
    dir,
    "x509",
    "-req",
    "-in",
    "host.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    "host.ext",
    "-out",
    "host.pem",
  );
};

/** Reads a CONNECT request's head from a fresh connection; what follows it stays unread. */
const readHead = async (conn: Deno.Conn): Promise<string | undefined> => {
  const bytes: Array<number> = [];
  const one = new Uint8Array(1);
  while (bytes.length < 8192) {
    if (await conn.read(one) === null) return undefined;
    bytes.push(one[0]!);
    const n = bytes.length;
    if (n >= 4 && bytes[n - 4] === 13 && bytes[n - 3] === 10 && bytes[n - 2] === 13 && bytes[n - 1] === 10) {
      return new TextDecoder().decode(new Uint8Array(bytes));
    }
  }
  return undefined;
};

export const startBlockfrostHostProxy = async (serviceBase: string): Promise<BlockfrostHostProxy> => {
  const dir = await Deno.makeTempDir({ prefix: "cds-bf-proxy-" });
  await makeCertificates(dir);
  const tls = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: await Deno.readTextFile(join(dir, "host.pem")),
    key: await Deno.readTextFile(join(dir, "host.key")),
    onListen: () => {},
  }, async (request) => {
    const url = new URL(request.url);
    const network = hosts[request.headers.get("host")?.replace(/:443$/, "") ?? url.hostname];
    if (!network || !url.pathname.startsWith("/api/v0")) return new Response("unknown host", { status: 502 });
    const target = `${serviceBase}${blockfrostBases[network]}${
      url.pathname.slice("/api/v0".length)
    }${url.search}`;
    const headers = new Headers(request.headers);
    for (const h of ["host", "connection", "proxy-connection", "keep-alive"]) headers.delete(h);
    const body = request.method === "GET" || request.method === "HEAD"
      ? undefined
      : await request.arrayBuffer();
    const answer = await fetch(target, { method: request.method, headers, body });
    // fetch has already decoded and de-chunked the body: those headers, and the hop-by-hop ones, do not pass
    const answerHeaders = new Headers(answer.headers);
    for (const h of ["connection", "transfer-encoding", "content-encoding", "content-length", "keep-alive"]) {
      answerHeaders.delete(h);
    }
    return new Response(answer.body, { status: answer.status, headers: answerHeaders });
  });
  const connects: Array<string> = [];
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const tunnel = async (client: Deno.Conn) => {
    open.add(client);
    try {
      const head = await readHead(client);
      const target = head?.match(/^CONNECT ([^ ]+) HTTP\/1\.[01]\r\n/)?.[1];
      const host = target?.replace(/:443$/, "");
      if (!host || !hosts[host]) {
        await client.write(new TextEncoder().encode("HTTP/1.1 403 Forbidden\r\n\r\n"));
        return;
      }
      connects.push(host);
      const upstream = await Deno.connect({ hostname: "127.0.0.1", port: tls.addr.port });
      open.add(upstream);
      await client.write(new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      await Promise.all([
        client.readable.pipeTo(upstream.writable, { preventClose: true }).catch(() => {}),
        upstream.readable.pipeTo(client.writable, { preventClose: true }).catch(() => {}),
      ]).finally(() => open.delete(upstream));
    } catch {
      // a client that went away mid-tunnel
    } finally {
      open.delete(client);
      try {
        client.close();
      } catch { /* already closed */ }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) tunnel(conn);
  })().catch(() => {});
  return {
    env: { HTTPS_PROXY: `http://127.0.0.1:${listener.addr.port}`, DENO_CERT: join(dir, "ca.pem") },
    connects,
    close: async () => {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
      await accepting;
      await tls.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
};
