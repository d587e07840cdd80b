/**
 * A Mesh dApp that knows only its project id (`new BlockfrostProvider("preprod_…")` of the `@meshsdk/provider`
 * package, which targets `https://cardano-preprod.blockfrost.io/api/v0`): run as its own process behind the proxy
 * of blockfrost_host_proxy.ts (HTTPS_PROXY and DENO_CERT in its environment), it makes mesh_payment.ts' payment
 * and prints its result as one JSON line. Arguments: project id, signing key, payee, lovelace.
 */
import { DeclaredProvider, meshPayment } from "./mesh_payment.ts";

const [projectId, signingKey, to, lovelace] = Deno.args;
const provider = new DeclaredProvider(projectId!);
const result = await meshPayment(provider, { signingKey: signingKey!, to: to!, lovelace: BigInt(lovelace!) });
console.log(JSON.stringify(result));
// onTxConfirmed's interval is cleared; the provider holds no other handle
Deno.exit(0);
