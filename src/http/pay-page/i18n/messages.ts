import type { en } from "./en";

/** Every string of the hosted pages, by key; each language's catalogue must have all of them (and no others). */
export type Messages = { readonly [Key in keyof typeof en]: string };

/** A key of the catalogue. */
export type MessageKey = keyof Messages;
