import { useCallback, useEffect, useState } from "react";
import { type Plan, plansRequest, type Profile, profileRequest, type UserPlan, userPlanRequest } from "../api/account-api";

/** The profile page's data: profile, current plan with storage used, and the plan catalogue. */
export function useProfileData() {
  const [profile, setProfile] = useState<Profile | null>(null);
  const [plan, setPlan] = useState<UserPlan | null>(null);
  const [plans, setPlans] = useState<Plan[] | null>(null);
  const [loadError, setLoadError] = useState(false);
  const [plansError, setPlansError] = useState(false);

  const reloadPlan = useCallback(async () => {
    const { data } = await userPlanRequest().catch(() => ({ data: null }));
    if (data) setPlan(data);
  }, []);

  useEffect(() => {
    let active = true;
    Promise.all([profileRequest(), userPlanRequest()])
      .then(([p, u]) => {
        if (!active) return;
        if (!p.data || !u.data) throw new Error("load failed");
        setProfile(p.data);
        setPlan(u.data);
      })
      .catch(() => active && setLoadError(true));
    plansRequest()
      .then(({ data }) => {
        if (!active) return;
        if (data) setPlans(data);
        else setPlansError(true);
      })
      .catch(() => active && setPlansError(true));
    return () => {
      active = false;
    };
  }, []);

  const mergeProfile = useCallback((changes: Partial<Profile>) => setProfile((p) => (p ? { ...p, ...changes } : p)), []);
  return { profile, plan, plans, loadError, plansError, reloadPlan, mergeProfile };
}
