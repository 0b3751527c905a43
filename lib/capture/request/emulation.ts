/**
 * The emulation options as the page will get them: the locale as a canonical BCP 47 tag and the
 * time zone as its canonical IANA name; 400 for either when it is not one.
 */
import { invalidField } from "./request_failure.ts";
import type { CaptureOptions } from "./options.ts";

// An IANA zone name (Area/Location, or a legacy single word like UTC): Intl alone would also
// take "+01:00", which Chromium's time zone override refuses.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The canonical form of a locale tag, or null when it is not BCP 47. */
export function canonicalLocale(locale: string): string | null {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? null;
  } catch {
    return null;
  }
}

/** The canonical name of an IANA time zone ("europe/berlin" is "Europe/Berlin"), else null. */
export function canonicalTimezone(zone: string): string | null {
  if (!ZONE_NAME.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** locale and timezone in canonical form (so spellings share a cache entry); 400 for unknowns. */
export function resolveEmulation(options: CaptureOptions): CaptureOptions {
  const resolved = { ...options };
  if (options.locale !== undefined) {
    const locale = canonicalLocale(options.locale);
    if (!locale) {
      throw invalidField(
        `locale "${options.locale}" is not a BCP 47 language tag.`,
        'Send a language tag such as "de-DE", "fr", "pt-BR" or "zh-Hant-TW".',
      );
    }
    resolved.locale = locale;
  }
  if (options.timezone !== undefined) {
    const timezone = canonicalTimezone(options.timezone);
    if (!timezone) {
      throw invalidField(
        `timezone "${options.timezone}" is not a known IANA time zone.`,
        'Send an IANA time zone name such as "Europe/Berlin", "America/New_York" or "UTC".',
      );
    }
    resolved.timezone = timezone;
  }
  return resolved;
}
