import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "../../lib/config.ts";
import { s3SettingsOf } from "../../lib/storage/open.ts";

const FULL = {
  S3_ENDPOINT: "https://s3.eu-west-1.amazonaws.com",
  S3_REGION: "eu-west-1",
  S3_BUCKET: "shotline-results",
  S3_ACCESS_KEY_ID: "AKIAEXAMPLE",
  S3_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
};

/** The ConfigError `env` makes (fails the test if it parses). */
function configError(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error;
  }
  assert.fail("the configuration was accepted");
}

Deno.test("without S3 variables there are no S3 settings; all five give them with defaults", () => {
  assert.equal(s3SettingsOf(parseConfig({})), null);
  const config = parseConfig(FULL);
  assert.equal(config.S3_FORCE_PATH_STYLE, false);
  assert.equal(config.S3_PREFIX, "");
  assert.equal(config.S3_PUBLIC_BASE_URL, undefined);
  assert.deepEqual(s3SettingsOf(config), {
    endpoint: FULL.S3_ENDPOINT,
    region: "eu-west-1",
    bucket: "shotline-results",
    accessKeyId: "AKIAEXAMPLE",
    secretAccessKey: FULL.S3_SECRET_ACCESS_KEY,
    forcePathStyle: false,
    prefix: "",
    publicBaseUrl: undefined,
  });
  const tuned = parseConfig({
    ...FULL,
    S3_FORCE_PATH_STYLE: "true",
    S3_PREFIX: "shotline/",
    S3_PUBLIC_BASE_URL: "https://cdn.example.com/r/",
  });
  assert.equal(tuned.S3_FORCE_PATH_STYLE, true);
  assert.equal(tuned.S3_PREFIX, "shotline/");
  assert.equal(tuned.S3_PUBLIC_BASE_URL, "https://cdn.example.com/r");
});

Deno.test("a partial S3 set refuses to start, naming exactly the missing variables", () => {
  const error = configError({ S3_ENDPOINT: FULL.S3_ENDPOINT, S3_REGION: "eu-west-1" });
  assert.match(error.message, /missing S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY/);

  const { S3_SECRET_ACCESS_KEY: _, ...noSecret } = FULL;
  const one = configError(noSecret);
  assert.match(one.message, /missing S3_SECRET_ACCESS_KEY \(/);
  assert.ok(!one.message.includes(FULL.S3_ACCESS_KEY_ID));

  // An empty value is unset, as everywhere in the configuration.
  assert.match(configError({ ...FULL, S3_BUCKET: "" }).message, /missing S3_BUCKET \(/);
});

Deno.test("optional S3 variables without the required ones refuse to start", () => {
  const error = configError({ S3_PUBLIC_BASE_URL: "https://cdn.example.com" });
  assert.match(error.message, /S3_PUBLIC_BASE_URL set without S3 object storage/);
  assert.match(configError({ S3_PREFIX: "r/" }).message, /S3_PREFIX set without/);
});

Deno.test("malformed S3 values are named; the secret key never printed", () => {
  assert.match(configError({ ...FULL, S3_ENDPOINT: "s3.example.com" }).message, /S3_ENDPOINT=/);
  assert.match(
    configError({ ...FULL, S3_FORCE_PATH_STYLE: "maybe" }).message,
    /S3_FORCE_PATH_STYLE=/,
  );
  assert.match(configError({ ...FULL, S3_PREFIX: "/abs/" }).message, /S3_PREFIX=.*must not start/);
  assert.match(
    configError({ ...FULL, S3_PUBLIC_BASE_URL: "ftp://x" }).message,
    /S3_PUBLIC_BASE_URL=/,
  );
  // A set holding only the secret is refused without quoting it.
  const alone = configError({ S3_SECRET_ACCESS_KEY: FULL.S3_SECRET_ACCESS_KEY });
  assert.match(alone.message, /missing S3_ENDPOINT, S3_REGION, S3_BUCKET, S3_ACCESS_KEY_ID \(/);
  assert.ok(!alone.message.includes(FULL.S3_SECRET_ACCESS_KEY));
});
