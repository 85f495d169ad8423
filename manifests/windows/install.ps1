# Registers the Browser Bridge native-messaging host on Windows for Google
# Chrome, Chromium, Microsoft Edge, Brave and Vivaldi: writes the host
# manifest, then points each browser's registry key at it. -Uninstall removes
# both again. Per user (HKCU) by default; -System registers for every user
# (HKLM) and needs an administrator PowerShell.
#
#   powershell -ExecutionPolicy Bypass -File install.ps1 [-BinaryPath PATH]
#       [-ExtensionId ID,...] [-System] [-Uninstall]
#
# The registry keys below mirror the table in host/install.c; the test
# tests/check-install.c fails when the two differ.

param(
    [string]$BinaryPath = (Join-Path $PSScriptRoot 'browser-bridge.exe'),
    [string[]]$ExtensionId = @(),
    [string]$Template = (Join-Path $PSScriptRoot '..\org.browserbridge.host.json.in'),
    [switch]$System,
    [switch]$Uninstall
)

$ErrorActionPreference = 'Stop'
$HostName = 'org.browserbridge.host'
$DefaultExtensionId = 'lbgfejnjcgkdeceohflfkdiejmokjlpk'

# Each browser's key (under HKCU or HKLM); the host's key is KEY\$HostName.
# Vivaldi has no key of its own: it reads Chrome's.
$Browsers = [ordered]@{
    chrome   = 'Software\Google\Chrome\NativeMessagingHosts'
    chromium = 'Software\Chromium\NativeMessagingHosts'
    edge     = 'Software\Microsoft\Edge\NativeMessagingHosts'
    brave    = 'Software\BraveSoftware\Brave-Browser\NativeMessagingHosts'
    vivaldi  = 'Software\Google\Chrome\NativeMessagingHosts'
}

if ($System) {
    $identity = [Security.Principal.WindowsIdentity]::GetCurrent()
    $principal = New-Object Security.Principal.WindowsPrincipal($identity)
    if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
        throw '-System writes HKLM and needs an administrator PowerShell: right-click PowerShell, "Run as administrator", and run this again.'
    }
    $Hive = 'HKLM:'
    $ManifestDir = Join-Path $env:ProgramData 'BrowserBridge'
} else {
    $Hive = 'HKCU:'
    $ManifestDir = Join-Path $env:LOCALAPPDATA 'BrowserBridge'
}
$ManifestPath = Join-Path $ManifestDir "$HostName.json"

if ($Uninstall) {
    foreach ($name in $Browsers.Keys) {
        $key = "$Hive\$($Browsers[$name])\$HostName"
        $item = Get-Item -Path $key -ErrorAction SilentlyContinue
        $value = if ($item) { $item.GetValue('') } else { $null }
        if ($value -eq $ManifestPath) {
            Remove-Item -Path $key -Force
            Write-Output "${name}: removed $key"
        } elseif ($null -ne $value) {
            Write-Output "${name}: kept $key (it points at $value, not at $ManifestPath)"
        } else {
            Write-Output "${name}: nothing to remove"
        }
    }
    if (Test-Path -LiteralPath $ManifestPath) {
        Remove-Item -LiteralPath $ManifestPath -Force
        Write-Output "removed $ManifestPath"
    }
    return
}

$ids = @(@($DefaultExtensionId) + $ExtensionId | Select-Object -Unique)
foreach ($id in $ids) {
    if ($id -cnotmatch '^[a-p]{32}$') {
        throw "-ExtensionId '$id' is not an extension ID: an ID is 32 letters from a to p, as chrome://extensions shows it in Developer mode."
    }
}
if (-not (Test-Path -LiteralPath $BinaryPath -PathType Leaf)) {
    throw "No browser-bridge.exe at $BinaryPath; pass its location with -BinaryPath."
}
$binary = (Resolve-Path -LiteralPath $BinaryPath).Path

# Fill in the template the same way host/install.c writes the manifest.
$origins = ($ids | ForEach-Object { '"chrome-extension://' + $_ + '/"' }) -join ",`n    "
$text = (Get-Content -Raw -LiteralPath $Template).Replace("`r`n", "`n")
$text = $text.Replace('@BRIDGE_PATH@', $binary.Replace('\', '\\').Replace('"', '\"'))
$text = $text.Replace('@ALLOWED_ORIGINS@', $origins)
New-Item -ItemType Directory -Force -Path $ManifestDir | Out-Null
[IO.File]::WriteAllText($ManifestPath, $text, (New-Object Text.UTF8Encoding($false)))
Write-Output "wrote $ManifestPath"

foreach ($name in $Browsers.Keys) {
    $key = "$Hive\$($Browsers[$name])\$HostName"
    New-Item -Path $key -Force | Out-Null
    Set-Item -Path $key -Value $ManifestPath
    Write-Output "${name}: $key -> $ManifestPath"
}
Write-Output 'Restart the browser (or reload the extension) to pick it up.'
