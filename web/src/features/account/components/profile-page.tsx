// Placeholder until this screen is built: shows its heading so navigation and guards work.
export function ProfilePage() {
  return (
    <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">My Profile</h1>
    </div>
  );
}
