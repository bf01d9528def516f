import type { NextFunction, Request, Response } from "express";

/** The reader's own login, as the dashboard guide imports it (`./auth`): only its shape matters. */
export interface SignedInUser {
  email: string;
  isAdmin: boolean;
  merchantIds: string[] | "all";
}

/** The signed-in user of a request, or null (the host's session or proxy header). */
export function currentUser(req: Request): SignedInUser | null {
  void req;
  return null;
}

/** The host's login wall: sends the visitor to sign in when no one is. */
export function requireLogin(req: Request, res: Response, next: NextFunction): void {
  if (currentUser(req)) next();
  else res.redirect("/login");
}
