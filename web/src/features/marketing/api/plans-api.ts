import { api } from "../../../lib/api-client";

export const plansRequest = () => api.settings.plans.get();

/** A plan of the public catalogue, as the server answers it. */
export type Plan = NonNullable<Awaited<ReturnType<typeof plansRequest>>["data"]>[number];
