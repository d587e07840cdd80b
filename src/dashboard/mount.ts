/**
 * The key dashboard's pages as the service's routes: public to the router, as they need a session rather than
 * a key (routes.ts checks the session); a request the router cannot read gets the dashboard's error page.
 */
import { Option } from "effect";
import type { Route } from "@src/http/route.ts";
import { dashboardAccounts } from "./account_service.ts";
import { unreadableRequestPage } from "./failures.ts";
import { makeDashboardRoutes } from "./routes.ts";

export const dashboardRoutes: ReadonlyArray<Route> = makeDashboardRoutes(dashboardAccounts).map((r) => ({
  method: r.method,
  path: r.path,
  access: "public",
  malformed: unreadableRequestPage,
  run: (ctx) =>
    r.run({
      request: ctx.request,
      url: ctx.url,
      params: ctx.params,
      clientAddress: ctx.clientAddress,
      publicUrl: Option.getOrUndefined(ctx.config.publicUrl),
      cookieSecure: ctx.config.cookieSecure,
    }),
}));
