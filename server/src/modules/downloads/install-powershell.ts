import type { Release } from "./release";

/** Single-quotes a value for PowerShell (a quote inside is doubled). */
const psQuote = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * The Windows installer, `irm <server>/install.ps1 | iex` in PowerShell: downloads the
 * windows-x64 agent into %LOCALAPPDATA%\Programs\DBVault (or $env:DBVAULT_INSTALL_DIR), checks
 * its SHA-256 against the release manifest, installs it and puts the folder on the user's PATH.
 * It never calls `exit` (under iex that would close the user's window): a refusal returns.
 * PowerShell has no Ed25519, so the manifest's signature is left to the agent's own updates.
 */
export function renderPowerShellInstaller(release: Release): string {
  const publicUrl = release.installPowerShell.replace(/\/install\.ps1$/, "");
  // What is offered: the signed lines whose files are here (a line without its file would 404).
  const windows = release.platforms.find((entry) => entry.platform === "windows-x64");
  const offered = release.platforms.map((entry) => entry.platform).join(", ") || "none";
  return `# Installs the DBVault agent from ${publicUrl} on Windows.
#   irm ${publicUrl}/install.ps1 | iex
# $env:DBVAULT_INSTALL_DIR chooses the folder (default: %LOCALAPPDATA%\\Programs\\DBVault). The
# download is checked against the SHA-256 of the server's signed release manifest (signing key
# ${release.publicKey}); Windows PowerShell cannot check the Ed25519 signature itself.
& {
  $ErrorActionPreference = 'Stop'
  # Invoke-WebRequest's progress bar makes a 100 MB download many times slower.
  $ProgressPreference = 'SilentlyContinue'
  $server = ${psQuote(publicUrl)}
  if ($env:DBVAULT_URL) { $server = $env:DBVAULT_URL }
  $file = ${psQuote(windows ? windows.url.slice(windows.url.lastIndexOf("/") + 1) : "")}
  $sha256 = ${psQuote(windows?.sha256 ?? "")}
  function Say([string]$message) { Write-Host "dbvault-install: $message" }
  function Refuse([string]$message, [string]$hint) {
    Write-Host "dbvault-install: error: $message" -ForegroundColor Red
    if ($hint) { Write-Host "dbvault-install: hint: $hint" }
  }

  if (-not [Environment]::Is64BitOperatingSystem) { return Refuse 'the DBVault agent needs 64-bit Windows' }
  if (-not $sha256) {
    return Refuse ${psQuote(`this server offers no agent for windows-x64 (offered: ${offered})`)} "ask the server's administrator to build it (npm run build:agent -- --all)"
  }
  $dir = if ($env:DBVAULT_INSTALL_DIR) { $env:DBVAULT_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\\DBVault' }
  New-Item -ItemType Directory -Force -Path $dir | Out-Null
  $target = Join-Path $dir 'dbvault-agent.exe'
  $tmp = Join-Path $dir ('.dbvault-agent.' + [guid]::NewGuid().ToString('N') + '.tmp')
  $url = "$server/downloads/$file"
  try {
    Say "downloading $url"
    Invoke-WebRequest -UseBasicParsing -Uri $url -OutFile $tmp
    $actual = (Get-FileHash -Algorithm SHA256 -LiteralPath $tmp).Hash.ToLowerInvariant()
    if ($actual -ne $sha256) {
      return Refuse "checksum mismatch for $url (expected $sha256, got $actual): nothing was installed" 'try again; if it persists, the file was altered on its way or in the server''s storage'
    }
    try {
      Move-Item -Force -LiteralPath $tmp -Destination $target
    } catch {
      return Refuse "cannot replace $target (is the agent running?)" 'stop it first: schtasks /End /TN "DBVault Agent"'
    }
  } catch {
    return Refuse "the download from $url failed: $($_.Exception.Message)"
  } finally {
    if (Test-Path -LiteralPath $tmp) { Remove-Item -Force -LiteralPath $tmp }
  }
  Say "installed $target (SHA-256 $sha256)"
  $userPath = [string][Environment]::GetEnvironmentVariable('Path', 'User')
  if (-not (($userPath -split ';') -contains $dir)) {
    [Environment]::SetEnvironmentVariable('Path', (@($userPath.TrimEnd(';'), $dir) -join ';').TrimStart(';'), 'User')
    $env:Path = "$env:Path;$dir"
    Say "added $dir to your PATH (terminals opened from now on have it)"
  }
  Say "next: dbvault-agent setup --server $server"
}
`;
}
