/**
 * A multipart/form-data body written as bytes, the file parts copied a slice per turn of the
 * event loop (lib/http/turns.ts). The runtime's FormData encoder took 0.4 to 0.5 s in one piece
 * for one 25 MiB part on two loaded cores.
 */
import { joinInSlices } from "./turns.ts";

/** One part: a text field, or a file when `filename` is given. */
export interface FormField {
  name: string;
  value: string | Uint8Array;
  filename?: string;
}

const ENCODER = new TextEncoder();

/** The body of `fields` and the Content-Type that names its boundary. */
export async function multipartBody(
  fields: FormField[],
): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string }> {
  // Random, as a browser's: a part's bytes holding it by chance is as unlikely as a guess.
  const boundary = `----shotline${crypto.randomUUID().replaceAll("-", "")}`;
  const pieces: Uint8Array[] = [];
  for (const field of fields) {
    const filename = field.filename === undefined ? "" : `; filename="${escaped(field.filename)}"`;
    const type = field.filename === undefined ? "" : "\r\nContent-Type: application/octet-stream";
    pieces.push(
      ENCODER.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${escaped(field.name)}"` +
          `${filename}${type}\r\n\r\n`,
      ),
      typeof field.value === "string" ? ENCODER.encode(field.value) : field.value,
      ENCODER.encode("\r\n"),
    );
  }
  pieces.push(ENCODER.encode(`--${boundary}--\r\n`));
  const body = await joinInSlices(pieces);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A name as the HTML standard writes it in a part's header: `"`, CR and LF percent-encoded. */
function escaped(name: string): string {
  return name.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
