import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { listPlans, toPlanView } from "./service";

/** Public plan catalogue, used by the landing page's pricing section. */
export const plansController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/settings" }).get("/plans", async () => (await listPlans(ctx.db)).map(toPlanView), {
    detail: { tags: ["Plans"], summary: "List plans (public)" },
  });
