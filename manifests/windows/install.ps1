# Registers the Browser Bridge native-messaging host on Windows for Google
# Chrome, Chromium, Microsoft Edge, Brave and Vivaldi, for this user. A thin
# wrapper: browser-bridge.exe does the work itself (`browser-bridge.exe
# install` writes the manifest to %LOCALAPPDATA%\BrowserBridge and points
# each browser's key HKCU\Software\...\NativeMessagingHosts\org.browserbridge.host
# at it; `uninstall` removes the keys that name this host's manifest, then
# the file). Running the .exe from a command prompt does the same.
#
#   powershell -ExecutionPolicy Bypass -File install.ps1 [-BinaryPath PATH]
#       [-Browser NAME,...] [-ExtensionId ID,...] [-Uninstall]
#
# Without -Browser every browser found is registered; NAME is chrome,
# chromium, edge, brave, vivaldi or all.

param(
    [string]$BinaryPath = (Join-Path $PSScriptRoot 'browser-bridge.exe'),
    [string[]]$Browser = @(),
    [string[]]$ExtensionId = @(),
    [switch]$Uninstall
)

$ErrorActionPreference = 'Stop'

if (-not (Test-Path -LiteralPath $BinaryPath -PathType Leaf)) {
    throw "No browser-bridge.exe at $BinaryPath; pass its location with -BinaryPath."
}

$arguments = @(if ($Uninstall) { 'uninstall' } else { 'install' })
foreach ($name in $Browser) {
    $arguments += @('--browser', $name)
}
foreach ($id in $ExtensionId) {
    $arguments += @('--extension-id', $id)
}
& $BinaryPath @arguments
exit $LASTEXITCODE
