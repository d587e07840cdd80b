/**
 * The service's own answers that an adapter's route gives outside its dialect (a missing asset, a GET that
 * should have been a WebSocket upgrade, a chain database down for a health probe). They are the service's error
 * envelope (REST's, src/rest/failures.ts); the server hands them to each adapter's route list, so adapters need
 * not import each other.
 */
import type { Network } from "@schemas/network.ts";

export interface EdgeAnswers {
  readonly notFound: (message: string) => Response;
  readonly upgradeExpected: (path: string) => Response;
  readonly chainDatabaseUnreachable: (network: Network, message: string) => Response;
}
