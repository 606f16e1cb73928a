export { type Plan, usePlans } from "../../../lib/api/get-plans";
