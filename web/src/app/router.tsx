import { type ComponentType, Suspense } from "react";
import { Route, Switch, useLocation } from "wouter";
import { LoadingScreen } from "../components/ui/spinner";
import { RedirectIfSignedIn, RequireAdmin, RequireAuth } from "../features/auth/components/route-guards";
import { PageErrorBoundary } from "./layout/page-error-boundary";
import { lazyPage, retryFailedPages } from "./lazy-page";

// One chunk per page, so the landing page loads only what it shows.
const page = lazyPage;

const Landing = page(() => import("./routes/landing"));
const Features = page(() => import("./routes/features"));
const About = page(() => import("./routes/about"));
const Contact = page(() => import("./routes/contact"));
const Privacy = page(() => import("./routes/privacy"));
const Terms = page(() => import("./routes/terms"));
const Login = page(() => import("./routes/login"));
const Register = page(() => import("./routes/register"));
const Sso = page(() => import("./routes/sso"));
const ForgotPassword = page(() => import("./routes/forgot-password"));
const ResetPassword = page(() => import("./routes/reset-password"));
const Banned = page(() => import("./routes/banned"));
const EmailChange = page(() => import("./routes/email-change"));
const Invitation = page(() => import("./routes/invitation"));
const KbList = page(() => import("./routes/kb-list"));
const KbArticle = page(() => import("./routes/kb-article"));
const AdminKbList = page(() => import("./routes/admin-kb-list"));
const AdminKbEditor = page(() => import("./routes/admin-kb-editor"));
const Dashboard = page(() => import("./routes/dashboard"));
const Settings = page(() => import("./routes/settings"));
const Profile = page(() => import("./routes/profile"));
const AuditLogs = page(() => import("./routes/audit-logs"));
const AdminDashboard = page(() => import("./routes/admin"));
const AdminOrganizations = page(() => import("./routes/admin-organizations"));
const NotFound = page(() => import("./routes/not-found"));

type Guard = "none" | "guest" | "auth" | "admin";

function render(Page: ComponentType, guard: Guard = "none") {
  const content = <Page />;
  if (guard === "auth") return <RequireAuth>{content}</RequireAuth>;
  if (guard === "admin") return <RequireAdmin>{content}</RequireAdmin>;
  if (guard === "guest") return <RedirectIfSignedIn>{content}</RedirectIfSignedIn>;
  return content;
}

export function AppRouter() {
  const [location] = useLocation();
  return (
    // An error on one page does not follow the user to the next one.
    <PageErrorBoundary resetKey={location} onRetry={retryFailedPages}>
      <Suspense fallback={<LoadingScreen />}>
        <Switch>
          <Route path="/">{render(Landing)}</Route>
          <Route path="/features">{render(Features)}</Route>
          <Route path="/about">{render(About)}</Route>
          <Route path="/contact">{render(Contact)}</Route>
          <Route path="/privacy">{render(Privacy)}</Route>
          <Route path="/terms">{render(Terms)}</Route>
          <Route path="/login">{render(Login, "guest")}</Route>
          <Route path="/register">{render(Register, "guest")}</Route>
          <Route path="/sso">{render(Sso)}</Route>
          <Route path="/forgot-password">{render(ForgotPassword)}</Route>
          <Route path="/reset-password/:token?">{render(ResetPassword)}</Route>
          <Route path="/banned">{render(Banned)}</Route>
          <Route path="/email-change/:action/:token">{render(EmailChange)}</Route>
          <Route path="/invite/:token">{render(Invitation)}</Route>
          <Route path="/kb">{render(KbList)}</Route>
          <Route path="/kb/:slug">{render(KbArticle)}</Route>
          <Route path="/dashboard">{render(Dashboard, "auth")}</Route>
          <Route path="/settings">{render(Settings, "auth")}</Route>
          <Route path="/profile">{render(Profile, "auth")}</Route>
          <Route path="/audit-logs">{render(AuditLogs, "auth")}</Route>
          <Route path="/admin/kb">{render(AdminKbList, "admin")}</Route>
          <Route path="/admin/kb/new">{render(AdminKbEditor, "admin")}</Route>
          <Route path="/admin/kb/:id">{render(AdminKbEditor, "admin")}</Route>
          <Route path="/admin/organizations">{render(AdminOrganizations, "admin")}</Route>
          <Route path="/admin">{render(AdminDashboard, "admin")}</Route>
          <Route>{render(NotFound)}</Route>
        </Switch>
      </Suspense>
    </PageErrorBoundary>
  );
}
