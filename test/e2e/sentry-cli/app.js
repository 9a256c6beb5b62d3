// The original source of the bundle the sentry-cli test minifies, uploads and symbolicates against.
export function computeTotal(items) {
  let total = 0;
  for (const item of items) total += item.price;
  if (total > 100) {
    throw new Error(`Total too high: ${total}`); // THROW-HERE
  }
  return total;
}

export function checkout(cart) {
  const total = computeTotal(cart.items);
  return { total, paid: true };
}

globalThis.runCheckout = () => checkout({ items: [{ price: 60 }, { price: 70 }] });
