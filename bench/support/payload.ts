// The result every bench step returns, Tether's tools and the peers' steps alike (bench/README.md): an order
// of about `bytes` of JSON. No imports, so bench/peers (a package of its own) can use it too.

/** An order of ~`bytes` (1 KB by default) of JSON; under 600 bytes, only an id and padding. */
export function orderPayload(i: number, bytes = 1024): Record<string, unknown> {
  if (bytes < 600) return { orderId: `ord_${i}`, note: "x".repeat(Math.max(0, bytes - 30)) };
  const items = Array.from({ length: 8 }, (_, k) => ({
    sku: `SKU-${i}-${k}`,
    name: `Item ${k} of order ${i}`,
    qty: k + 1,
    priceCents: 1999 + k,
  }));
  const base = {
    orderId: `ord_${i}`,
    status: "paid",
    customer: { id: `cus_${i % 97}`, email: `c${i % 97}@example.com` },
    items,
    note: "",
  };
  base.note = "x".repeat(Math.max(0, bytes - JSON.stringify(base).length));
  return base;
}
