/**
 * Test fixture: a real S3-compatible server on loopback, for the object storage tests. s3rver
 * (npm, a Node implementation of the S3 REST API on the file system) runs in this process under
 * Deno's Node compatibility, on a free port with a temporary directory. It checks access key ids
 * and presigned URL expiry but not SigV4 signatures, so a small front checks those, as S3 does,
 * before passing each request on: a wrong secret or a tampered URL is refused as S3 refuses it.
 * Dispose it in every test.
 */
import S3rver from "s3rver";

/** s3rver's built-in account: the only credentials it knows. */
const ACCESS_KEY_ID = "S3RVER";
const SECRET_ACCESS_KEY = "S3RVER";
const REGION = "us-east-1";

export interface S3TestServer extends AsyncDisposable {
  /** The front's URL, what S3_ENDPOINT is set to. */
  readonly endpoint: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  /** The S3_* environment of a service using this server (path style), plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
}

/** Starts s3rver with one empty bucket, behind the signature-checking front, on 127.0.0.1. */
export async function startS3Server(bucket = "results"): Promise<S3TestServer> {
  const dir = await Deno.makeTempDir({ prefix: "shotline_s3_" });
  const s3rver = new S3rver({
    address: "127.0.0.1",
    port: 0,
    directory: dir,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port: backPort } = await s3rver.run();
  const front = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => checkedThenPassed(request, `http://127.0.0.1:${backPort}`),
  );
  const endpoint = `http://127.0.0.1:${front.addr.port}`;
  return {
    endpoint,
    bucket,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    region: REGION,
    env(extra = {}) {
      return {
        S3_ENDPOINT: endpoint,
        S3_REGION: REGION,
        S3_BUCKET: bucket,
        S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
        S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
        S3_FORCE_PATH_STYLE: "true",
        ...extra,
      };
    },
    async [Symbol.asyncDispose]() {
      await front.shutdown();
      await s3rver.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** `request` refused as S3 would when its SigV4 signature is wrong, else s3rver's answer. */
async function checkedThenPassed(request: Request, back: string): Promise<Response> {
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null;
  const refusal = await signatureProblem(request, body);
  if (refusal) return s3Error(403, "SignatureDoesNotMatch", refusal, request.method);
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  headers.delete("host");
  const answer = await fetch(`${back}${url.pathname}${url.search}`, {
    method: request.method,
    headers,
    body,
  });
  // HEAD, 204 and 304 answers carry no body.
  const bodiless = request.method === "HEAD" || answer.status === 204 || answer.status === 304;
  const bytes = bodiless ? null : new Uint8Array(await answer.arrayBuffer());
  if (bodiless) await answer.body?.cancel();
  const passed = new Headers(answer.headers);
  passed.delete("content-length");
  passed.delete("transfer-encoding");
  return new Response(bytes, { status: answer.status, headers: passed });
}

/** An S3 error answer (no body for HEAD, as S3 does). */
function s3Error(status: number, code: string, message: string, method: string): Response {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code>` +
    `<Message>${message}</Message></Error>`;
  return new Response(method === "HEAD" ? null : xml, {
    status,
    headers: { "Content-Type": "application/xml" },
  });
}

/** Why the request's AWS4-HMAC-SHA256 signature (header or query) is wrong, or null if right. */
async function signatureProblem(request: Request, body: Uint8Array | null): Promise<string | null> {
  const url = new URL(request.url);
  const query = url.search.slice(1).split("&").filter(Boolean).map((pair) => {
    const at = pair.indexOf("=");
    const [name, value] = at < 0 ? [pair, ""] : [pair.slice(0, at), pair.slice(at + 1)];
    return [decodeURIComponent(name), decodeURIComponent(value.replace(/\+/g, " "))];
  });
  const param = (name: string) => query.find(([n]) => n === name)?.[1];
  let credential: string | undefined, signedHeaders: string | undefined;
  let signature: string | undefined, amzDate: string | null | undefined;
  let payloadHash: string | null | undefined;
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const fields = Object.fromEntries(
      authorization.replace(/^AWS4-HMAC-SHA256\s+/, "").split(/,\s*/).map((f) => f.split("=")),
    );
    [credential, signedHeaders, signature] = [
      fields.Credential,
      fields.SignedHeaders,
      fields.Signature,
    ];
    amzDate = request.headers.get("x-amz-date");
    payloadHash = request.headers.get("x-amz-content-sha256");
  } else if (param("X-Amz-Signature")) {
    credential = param("X-Amz-Credential");
    signedHeaders = param("X-Amz-SignedHeaders");
    signature = param("X-Amz-Signature");
    amzDate = param("X-Amz-Date");
    payloadHash = param("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD";
  } else {
    return null; // anonymous: s3rver answers it as S3 answers an anonymous request
  }
  if (!credential || !signedHeaders || !signature || !amzDate || !payloadHash) {
    return "incomplete signature";
  }
  if (
    payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== await sha256Hex(body ?? new Uint8Array())
  ) {
    return "the payload does not match x-amz-content-sha256";
  }
  const [, scopeDate, region, service] = credential.split("/");
  const canonicalQuery = query
    .filter(([name]) => name !== "X-Amz-Signature")
    .map(([name, value]) => [strictEncode(name), strictEncode(value)])
    .sort(([a, x], [b, y]) => a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0)
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  const canonicalHeaders = signedHeaders.split(";").map((name) =>
    `${name}:${(request.headers.get(name) ?? "").trim().replace(/\s+/g, " ")}\n`
  ).join("");
  const canonicalRequest = [
    request.method,
    url.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${await sha256Hex(
    new TextEncoder().encode(canonicalRequest),
  )}`;
  let key: Uint8Array = new TextEncoder().encode(`AWS4${SECRET_ACCESS_KEY}`);
  for (const part of [scopeDate, region, service, "aws4_request"]) key = await hmac(key, part);
  const expected = toHex(await hmac(key, stringToSign));
  return expected === signature ? null : "the request signature does not match";
}

/** RFC 3986 percent-encoding, as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
function strictEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

async function hmac(key: Uint8Array, text: string): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey(
    "raw",
    key as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(
    await crypto.subtle.sign("HMAC", imported, new TextEncoder().encode(text)),
  );
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return toHex(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)),
  );
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
