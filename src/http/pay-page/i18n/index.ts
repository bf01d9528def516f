import type { Request } from "express";
import { html, SafeHtml, type HtmlValue } from "../../../html/escape";
import { de } from "./de";
import { en } from "./en";
import { es } from "./es";
import { fr } from "./fr";
import type { MessageKey, Messages } from "./messages";
import { pt } from "./pt";
import { ru } from "./ru";
import { zh } from "./zh";

export type { MessageKey, Messages } from "./messages";

/** The languages of the hosted pages, in the order the language switch lists them; English is the fallback. */
export const LANGUAGES = ["en", "es", "de", "fr", "pt", "ru", "zh"] as const;

/** One language of the hosted pages (an ISO 639-1 code, also the page's `<html lang>`). */
export type Language = (typeof LANGUAGES)[number];

const CATALOGUES: Readonly<Record<Language, Messages>> = { en, es, de, fr, pt, ru, zh };

/** Each language's name in itself, as the switch shows it (a payer looks for their own language). */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: "English",
  es: "Español",
  de: "Deutsch",
  fr: "Français",
  pt: "Português",
  ru: "Русский",
  zh: "中文",
};

/** Whether `value` names one of the page's languages. */
export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The language of a request: the one the payer picked on the page (`?lang=`), else the best of
 * `Accept-Language` by its q-values, else English. Express's own `acceptsLanguages` reads the
 * header (the `negotiator` package, the parser Express ships with): `pt-BR` picks `pt`,
 * `zh-CN` picks `zh`, a language we do not have is passed over for the next one.
 */
export function requestLanguage(req: Request): { language: Language; chosen: boolean } {
  const asked = req.query.lang;
  if (isLanguage(asked)) return { language: asked, chosen: true };
  const accepted = req.acceptsLanguages([...LANGUAGES]);
  return { language: isLanguage(accepted) ? accepted : "en", chosen: false };
}

/** Values put into a message: text is escaped, markup built by `html` is kept. */
export type MessageValues = Readonly<Record<string, HtmlValue>>;

/**
 * The strings of one language. `text` gives plain text (titles, attributes), `html` the same
 * message as markup with its values escaped, so a value may itself be markup (a link, a bold
 * amount). A placeholder without a value is left as written, which a test would see.
 */
export class Translator {
  private readonly messages: Messages;

  constructor(readonly language: Language) {
    this.messages = CATALOGUES[language];
  }

  /** The message as plain text, values as given. */
  text(key: MessageKey, values: Readonly<Record<string, string | number>> = {}): string {
    return this.messages[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
  }

  /** The message as markup: its text escaped, each value escaped unless it is markup already. */
  html(key: MessageKey, values: MessageValues = {}): SafeHtml {
    const parts = this.messages[key].split(/\{(\w+)\}/);
    // split with a capture group alternates text and placeholder names: text, name, text, ...
    const out = parts.map((part, index) => (index % 2 === 0 ? html`${part}` : part in values ? html`${values[part]}` : html`{${part}}`));
    return new SafeHtml(out.map((piece) => piece.value).join(""));
  }

  /** "in 2 minutes", "через 1 минуту": a wait, in the grammar of the language. */
  inTime(seconds: number): string {
    const format = new Intl.RelativeTimeFormat(this.language, { numeric: "always" });
    return seconds < 60 ? format.format(seconds, "second") : format.format(Math.ceil(seconds / 60), "minute");
  }
}

/** The translator of a language. */
export function translator(language: Language): Translator {
  return new Translator(language);
}
