/**
 * `deno task link --url https://example.com --expires-in 3600 [--format webp]
 * [--field name=value ...] [--base https://shots.example]`: prints a signed GET /api/render URL
 * (docs/render-links.md). The secret is RENDER_LINK_SECRET from the environment, never an
 * argument (arguments end up in shell history and process lists). A `--field` value is the
 * query text itself: a string as it is, anything else as its JSON text (`--field width=1440`,
 * `--field 'hideSelectors=[".chat"]'`). The base URL is `--base`, else PUBLIC_BASE_URL, else
 * http://localhost:8000.
 */
import { parseArgs } from "node:util";
import { signRenderLink } from "../lib/http/render_links.ts";

const USAGE = "usage: deno task link --url <url> --expires-in <seconds> [--format png|jpeg|webp] " +
  "[--field name=value ...] [--base <service URL>]";

/** The link the arguments describe, signed with `secret` at `now` (epoch ms). */
export async function linkFromArguments(
  args: string[],
  options: { secret: string | undefined; baseUrl: string | undefined; now: number },
): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: "string" },
      "expires-in": { type: "string" },
      format: { type: "string" },
      field: { type: "string", multiple: true },
      base: { type: "string" },
    },
  });
  if (!options.secret || options.secret.length < 32) {
    throw new Error("RENDER_LINK_SECRET must be set to the service's secret (32+ characters).");
  }
  const expiresIn = Number(values["expires-in"]);
  if (!Number.isInteger(expiresIn) || expiresIn <= 0) {
    throw new Error(`--expires-in must be a whole number of seconds.\n${USAGE}`);
  }
  const fields: Record<string, string> = {
    ...(values.url !== undefined ? { url: values.url } : {}),
    ...(values.format !== undefined ? { format: values.format } : {}),
  };
  for (const field of values.field ?? []) {
    const at = field.indexOf("=");
    if (at < 1) throw new Error(`--field ${field}: expected name=value.\n${USAGE}`);
    fields[field.slice(0, at)] = field.slice(at + 1);
  }
  if (fields.url === undefined && fields.html === undefined) {
    throw new Error(`--url (or --field html=...) is required.\n${USAGE}`);
  }
  return await signRenderLink(values.base ?? options.baseUrl ?? "http://localhost:8000", fields, {
    secret: options.secret,
    expiresAt: new Date(options.now + expiresIn * 1000),
  });
}

if (import.meta.main) {
  try {
    console.log(
      await linkFromArguments(Deno.args, {
        secret: Deno.env.get("RENDER_LINK_SECRET"),
        baseUrl: Deno.env.get("PUBLIC_BASE_URL"),
        now: Date.now(),
      }),
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(2);
  }
}
