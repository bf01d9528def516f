/**
 * The reader's own order system, as the documentation's snippets import it (`./orders`): only
 * its shape matters, for the snippets to compile.
 */
export const orders = {
  /** Marks an order paid; `idempotencyKey` makes a repeat of the same event a no-op. */
  async markPaid(orderId: string, options: { paymentId: string; idempotencyKey: string }): Promise<void> {
    void orderId;
    void options;
  },
  /** Marks an order's payment failed. */
  async markFailed(orderId: string): Promise<void> {
    void orderId;
  },
};
