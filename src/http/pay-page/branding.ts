/**
 * The merchant's look on the hosted pages (`createPaymentRouter({ payPage })`): a name, a logo
 * and an accent colour. Validated when the router is created (options.ts), so what reaches
 * the page is an https URL and a `#rrggbb` colour, never free text in CSS or a header.
 */

import { ACCENT_COLOR, type PayPageBranding } from "../../service/options";

export type { PayPageBranding } from "../../service/options";

type Rgb = readonly [number, number, number];

const parse = (hex: string): Rgb => [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)) as unknown as Rgb;
const format = (rgb: Rgb) => `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, "0")).join("")}`;
/** `amount` of `from` mixed into `into` (0 keeps `into`). */
const mix = (from: Rgb, into: Rgb, amount: number): Rgb => into.map((channel, index) => channel + (from[index]! - channel) * amount) as unknown as Rgb;

/** WCAG relative luminance. */
function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours, 1 to 21. */
export function contrast(a: Rgb | string, b: Rgb | string): number {
  const [x, y] = [a, b].map((colour) => luminance(typeof colour === "string" ? parse(colour) : colour)) as [number, number];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];
/** WCAG AA for normal text. */
const READABLE = 4.5;

/**
 * The page's colour variables for an accent colour: the colour itself for buttons, with white
 * or black text on it (whichever reads better: one of them always reaches 4.58:1); a light
 * tint for highlighted backgrounds; and, for text in the accent colour on white or on that tint,
 * the colour darkened just enough to reach 4.5:1 (a pale brand colour stays the buttons' colour
 * but never becomes unreadable text).
 */
export function accentVariables(accent: string): Record<string, string> {
  const colour = parse(accent);
  const tint = mix(colour, WHITE, 0.08);
  let text = colour;
  for (let darken = 0.05; contrast(text, tint) < READABLE && darken <= 1; darken += 0.05) text = mix(BLACK, colour, darken);
  return {
    "--accent": format(colour),
    "--on-accent": contrast(WHITE, colour) >= contrast(BLACK, colour) ? "#fff" : "#000",
    "--accent-text": format(text),
    "--accent-bg": format(tint),
    // Borders of outlined buttons and boxes: from the readable shade, so a pale colour still draws a visible edge.
    "--accent-line": format(mix(text, WHITE, 0.4)),
  };
}

/** The CSS rule setting those variables, or "" without an accent colour. */
export function brandingCss(branding: PayPageBranding): string {
  if (!branding.accentColor || !ACCENT_COLOR.test(branding.accentColor)) return "";
  const variables = Object.entries(accentVariables(branding.accentColor)).map(([name, value]) => `${name}:${value}`);
  return `:root{${variables.join(";")}}`;
}

/** The origin of the logo, for the CSP's img-src; null without a logo. */
export function logoOrigin(branding: PayPageBranding): string | null {
  return branding.logoUrl ? new URL(branding.logoUrl).origin : null;
}
