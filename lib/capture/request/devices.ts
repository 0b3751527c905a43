/**
 * The named devices a capture may emulate: plain data, one line of reason each. Sizes are CSS
 * pixels; `scale` is the device pixel ratio; a null user agent keeps the browser's own (desktop).
 */
export const DEVICE_TYPES = ["desktop", "mobile"] as const;
export type DeviceType = typeof DEVICE_TYPES[number];

export const COLOR_SCHEMES = ["light", "dark"] as const;
export type ColorScheme = typeof COLOR_SCHEMES[number];

/** Viewports in CSS pixels at device scale 1. */
export const VIEWPORTS: Record<DeviceType, { width: number; height: number }> = {
  desktop: { width: 1920, height: 1080 },
  mobile: { width: 375, height: 667 },
};

export interface Device {
  /** The device class: the default size, user agent and touch a device without its own start from. */
  deviceType: DeviceType;
  width: number;
  height: number;
  scale: number;
  /** `{chrome}` is replaced by the running Chrome's major version; null: the browser's own. */
  userAgent: string | null;
}

const IOS_17 = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 " +
  "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

export const DEVICES = {
  // The most common current iPhone size class.
  "iphone-15": { deviceType: "mobile", width: 393, height: 852, scale: 3, userAgent: IOS_17 },
  // The smallest iPhone still sold: the narrow layout.
  "iphone-se": {
    deviceType: "mobile",
    width: 375,
    height: 667,
    scale: 2,
    userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 " +
      "(KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
  },
  // A common Android phone, with Chrome's own mobile user agent.
  "galaxy-s23": {
    deviceType: "mobile",
    width: 360,
    height: 780,
    scale: 3,
    userAgent: "Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like " +
      "Gecko) Chrome/{chrome}.0.0.0 Mobile Safari/537.36",
  },
  // A tablet in portrait: the layout between phone and desktop.
  "ipad-air": {
    deviceType: "mobile",
    width: 820,
    height: 1180,
    scale: 2,
    userAgent: "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, " +
      "like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  },
  // The most common laptop screen.
  "laptop": { deviceType: "desktop", width: 1366, height: 768, scale: 1, userAgent: null },
  // A 13" high-density laptop (MacBook Air class).
  "laptop-hidpi": { deviceType: "desktop", width: 1440, height: 900, scale: 2, userAgent: null },
  // A wide desktop monitor.
  "desktop-qhd": { deviceType: "desktop", width: 2560, height: 1440, scale: 1, userAgent: null },
} as const satisfies Record<string, Device>;

export type DeviceName = keyof typeof DEVICES;
export const DEVICE_NAMES = Object.keys(DEVICES) as [DeviceName, ...DeviceName[]];

/** A device's user agent for a browser whose own agent is `browserAgent` (null: keep it). */
export function deviceUserAgent(device: Device, browserAgent: string): string | null {
  if (!device.userAgent) return null;
  const major = /Chrome\/(\d+)/.exec(browserAgent)?.[1] ?? "130";
  return device.userAgent.replace("{chrome}", major);
}
