// Pieces of the whole-product journey (e2e/user-journey.test.ts): the seeded shop database and
// the changes made to it after the backup, and in-page recorders for what the user saw (every
// status a table row went through, the file name the app asked the browser to save).
import { Decimal128, Int32, Long, ObjectId } from "bson";
import type { Db, Document } from "mongodb";
import type { Page } from "playwright-core";

export const SEEDED_COUNTS = { customers: 250, orders: 15_000, products: 40 } as const;

/** Fills `db` with customers, orders and products of varied BSON types; the database should be empty. */
export async function seedShopDatabase(db: Db): Promise<void> {
  const base = Date.UTC(2024, 4, 1);
  await db.collection("customers").insertMany(
    Array.from({ length: SEEDED_COUNTS.customers }, (_, i) => ({
      _id: new Int32(i),
      name: `Customer ${i}`,
      email: `customer${i}@example.com`,
      joinedAt: new Date(base - i * 86_400_000),
      vip: i % 10 === 0,
      address: { city: ["Lyon", "Oslo", "Kyoto", "Lima"][i % 4], zip: `${10_000 + i}` },
      tags: i % 3 === 0 ? ["early", "newsletter"] : [],
    })) as Document[],
  );
  await db.collection("products").insertMany(
    Array.from({ length: SEEDED_COUNTS.products }, (_, i) => ({
      _id: `sku-${String(i).padStart(4, "0")}`,
      title: `Product ${i} — ünïcødé`,
      price: Decimal128.fromString(`${(i * 3.17 + 1).toFixed(2)}`),
      stock: Long.fromNumber(i * 1000),
    })) as Document[],
  );
  const orders: Document[] = [];
  for (let i = 0; i < SEEDED_COUNTS.orders; i++) {
    orders.push({
      _id: new ObjectId(),
      customerId: new Int32(i % SEEDED_COUNTS.customers),
      placedAt: new Date(base + i * 60_000),
      items: [{ sku: `sku-${String(i % SEEDED_COUNTS.products).padStart(4, "0")}`, quantity: new Int32(1 + (i % 5)) }],
      total: Decimal128.fromString(`${(i % 997) + 0.99}`),
      note: `order ${i} ${"n".repeat(i % 120)}`,
    });
  }
  for (let start = 0; start < orders.length; start += 5000) await db.collection("orders").insertMany(orders.slice(start, start + 5000));
  await db.collection("customers").createIndex({ email: 1 }, { name: "email_unique", unique: true });
}

/** What a careless day does to the shop after its backup: deletes, updates, inserts and a dropped collection. */
export async function damageShopDatabase(db: Db): Promise<void> {
  await db.collection("orders").deleteMany({ customerId: { $lt: 100 } });
  await db.collection("customers").updateMany({ vip: true }, { $set: { vip: false, name: "overwritten" } });
  await db.collection("customers").insertOne({ _id: new Int32(99_999), name: "Not in the backup" } as Document);
  await db.collection("products").drop();
}

type Recorded = { backups: string[]; restores: string[]; savedNames: string[] };

/**
 * Records, inside the page, every status the Recent Backups and Restore History rows show
 * (their badges' data-status) and the name of every file the app asks the browser to save.
 * Chromium itself turns ':' into '_' in saved file names, so the asked-for name is kept here.
 */
export async function installJourneyRecorders(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const recorded: Recorded = { backups: [], restores: [], savedNames: [] };
    (window as unknown as { journey: Recorded }).journey = recorded;
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      if (this.download) recorded.savedNames.push(this.download);
      return click.call(this);
    };
    const note = (list: string[], value: string | null) => {
      if (value && list.at(-1) !== value) list.push(value);
    };
    const scan = () => {
      note(recorded.backups, document.querySelector('[data-testid="backup-row"] [data-status]')?.getAttribute("data-status") ?? null);
      note(recorded.restores, document.querySelector('[data-testid="restore-row"] [data-status]')?.getAttribute("data-status") ?? null);
    };
    new MutationObserver(scan).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"] });
  });
}

/** What the recorders saw so far. */
export function readJourneyRecord(page: Page): Promise<Recorded> {
  return page.evaluate(() => (window as unknown as { journey: Recorded }).journey);
}
