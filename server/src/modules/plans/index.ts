import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { listPlans, toPlanView } from "./service";
import { planAnswers } from "./model";

/** Public plan catalogue, used by the landing page's pricing section. */
export const plansController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/settings" }).get("/plans", async () => (await listPlans(ctx.db)).map(toPlanView), {
    response: { 200: planAnswers.list },
    detail: { tags: ["Plans"], summary: "List plans (public)" },
  });
