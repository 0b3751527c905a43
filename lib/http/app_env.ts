import type { AppDeps } from "../services.ts";
import type { LogFields } from "../log.ts";

/** Hono environment shared by every router, so handlers see one typed context. */
export interface AppEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    /** Fields a handler adds to the request's access-log line (cache hit, strategy...). */
    logFields: LogFields;
  };
}
