<#
.SYNOPSIS
    Sets up envcheck and TensorFlow for the current Windows user. No Administrator rights needed.

.DESCRIPTION
    A thin bootstrap; every decision is made by envcheck (Python, tested on any OS):
      1. finds a 64-bit Python 3.9+ through the py launcher (32-bit Python is refused),
      2. creates a virtual environment (default: %LOCALAPPDATA%\envcheck\venv),
      3. installs envcheck into it from this repository (or -Source),
      4. asks envcheck which installed Python suits the recommended TensorFlow
         (`envcheck setup windows-python`) and rebuilds the new venv with it when it differs,
      5. runs `envcheck doctor`,
      6. when only WSL2 can give the GPU to the TensorFlow wanted (2.11 and newer), explains WSL2
         and checks whether WSL is installed (`envcheck setup wsl-state`),
      7. after you confirm (or with -Yes), runs `envcheck install --yes`.
    It writes only inside your profile (the venv and a scratch folder under %LOCALAPPDATA%) and
    restores the console encoding and the environment variables it changed.

.PARAMETER VenvDir
    The virtual environment to create or reuse. Default: %LOCALAPPDATA%\envcheck\venv.

.PARAMETER Source
    The envcheck source tree to install (a folder with pyproject.toml). Default: the repository
    this script is in. Dependencies come from your pip configuration.

.PARAMETER Tensorflow
    Only consider these TensorFlow versions, e.g. 2.10 or '>=2.11' (envcheck's --tensorflow).

.PARAMETER Yes
    Install without asking (for unattended runs).

.EXAMPLE
    powershell -NoProfile -ExecutionPolicy Bypass -File .\scripts\setup-windows.ps1

.EXAMPLE
    powershell -NoProfile -ExecutionPolicy Bypass -File .\scripts\setup-windows.ps1 -VenvDir "D:\venvs\tf" -Tensorflow ">=2.11" -Yes
#>
[CmdletBinding()]
param(
    [string]$VenvDir = '',
    [string]$Source = '',
    [string]$Tensorflow = '',
    [switch]$Yes
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
# PowerShell 7.3+: a native program's exit code is checked here, never turned into an exception.
$PSNativeCommandUseErrorActionPreference = $false

# The same sentence as envcheck.recommend.windows_setup.REFUSE_32BIT.
$Refuse32Bit = '32-bit Python cannot be used: TensorFlow has no 32-bit Windows wheels (and a 32-bit process cannot use the GPU)'
$Install64Bit = "install the 64-bit Python 3 from the official Windows installer ('Windows installer (64-bit)', with the py launcher option ticked), then run this script again"
$WslExplanation = @'
TensorFlow 2.11 and newer has no GPU build for native Windows (the last one is 2.10). To use
this NVIDIA GPU with a current TensorFlow, run TensorFlow inside WSL2, the Windows Subsystem for
Linux version 2: Linux there uses this Windows NVIDIA driver, so install no NVIDIA driver inside
Linux. The venv set up here gets the TensorFlow that runs natively (CPU only).
'@
$ProbeCode = "import struct, sys; print(struct.calcsize('P') * 8); print('%d.%d' % sys.version_info[:2]); print(sys.executable)"

$script:StopCode = $null
$script:SavedEnvironment = @{}
$script:SavedConsoleEncoding = $null
$script:WorkDir = $null

function Stop-Setup {
    param([Parameter(Mandatory = $true)][string]$Message, [int]$Code = 1)
    $script:StopCode = $Code
    throw $Message
}

function Write-Step {
    param([Parameter(Mandatory = $true)][string]$Text)
    Write-Host ''
    Write-Host "== $Text" -ForegroundColor Cyan
}

function Set-SessionVariable {
    # Sets a process environment variable for this run; Restore-Session puts the old value back.
    param([Parameter(Mandatory = $true)][string]$Name, [string]$Value)
    if (-not $script:SavedEnvironment.ContainsKey($Name)) {
        $script:SavedEnvironment[$Name] = [Environment]::GetEnvironmentVariable($Name, 'Process')
    }
    [Environment]::SetEnvironmentVariable($Name, $Value, 'Process')
}

function Restore-Session {
    foreach ($name in @($script:SavedEnvironment.Keys)) {
        [Environment]::SetEnvironmentVariable($name, $script:SavedEnvironment[$name], 'Process')
    }
    if ($null -ne $script:SavedConsoleEncoding) {
        try { [Console]::OutputEncoding = $script:SavedConsoleEncoding } catch { }
    }
    if ($null -ne $script:WorkDir -and (Test-Path -LiteralPath $script:WorkDir)) {
        Remove-Item -LiteralPath $script:WorkDir -Recurse -Force -ErrorAction SilentlyContinue
    }
}

function Get-FullPath {
    # An absolute path (relative to the current PowerShell location), without a trailing
    # separator: "C:\dir with space\" would end in \" on a native command line.
    param([Parameter(Mandatory = $true)][string]$Path)
    $full = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($Path)
    if ($full.Length -gt 3) {
        $full = $full.TrimEnd([char[]]@('\', '/'))
    }
    return $full
}

function Find-Application {
    param([Parameter(Mandatory = $true)][string]$Name)
    $command = Get-Command -Name $Name -CommandType Application -ErrorAction SilentlyContinue |
        Select-Object -First 1
    if ($null -eq $command) {
        return $null
    }
    return [string]$command.Path
}

function Assert-Program {
    # Every program is called by its full path, checked first.
    param([Parameter(Mandatory = $true)][string]$FilePath)
    if (-not (Test-Path -LiteralPath $FilePath -PathType Leaf)) {
        Stop-Setup "$FilePath does not exist."
    }
}

function Invoke-Tool {
    # Runs a program with the call operator and an argument array (never a command string);
    # its output goes to the console. Returns the exit code.
    param([Parameter(Mandatory = $true)][string]$FilePath, [string[]]$ArgumentList = @())
    Assert-Program -FilePath $FilePath
    $saved = $ErrorActionPreference
    $ErrorActionPreference = 'Continue'  # a native program's stderr is not a PowerShell error
    try {
        & $FilePath @ArgumentList | Out-Host
        $code = $LASTEXITCODE
    }
    finally {
        $ErrorActionPreference = $saved
    }
    return $code
}

function Invoke-Captured {
    # Like Invoke-Tool, but returns the exit code and stdout (stderr still goes to the console,
    # or nowhere with -Quiet).
    param(
        [Parameter(Mandatory = $true)][string]$FilePath,
        [string[]]$ArgumentList = @(),
        [switch]$Quiet
    )
    Assert-Program -FilePath $FilePath
    $saved = $ErrorActionPreference
    $ErrorActionPreference = 'Continue'
    try {
        if ($Quiet) {
            $lines = @(& $FilePath @ArgumentList 2>$null)
        }
        else {
            $lines = @(& $FilePath @ArgumentList)
        }
        $code = $LASTEXITCODE
    }
    finally {
        $ErrorActionPreference = $saved
    }
    $text = (@($lines | ForEach-Object { [string]$_ }) -join "`n")
    return [pscustomobject]@{ ExitCode = $code; Text = $text }
}

function Write-TextFile {
    # UTF-8 without a BOM; envcheck decodes whatever the tool printed.
    param([Parameter(Mandatory = $true)][string]$Path, [string]$Text)
    [System.IO.File]::WriteAllText($Path, $Text, (New-Object System.Text.UTF8Encoding $false))
}

function Get-PythonInfo {
    # Asks an interpreter itself for its pointer size, version and executable:
    # py -X.Y -c "import struct; print(struct.calcsize('P')*8)" and friends.
    param([Parameter(Mandatory = $true)][string]$FilePath, [string[]]$Selector = @())
    $arguments = @($Selector) + @('-I', '-X', 'utf8', '-c', $ProbeCode)
    $result = Invoke-Captured -FilePath $FilePath -ArgumentList $arguments -Quiet
    if ($result.ExitCode -ne 0) {
        return $null
    }
    $lines = @($result.Text -split "`n" | Where-Object { $_.Trim() -ne '' })
    if ($lines.Count -lt 3) {
        return $null
    }
    return [pscustomobject]@{
        Bits       = [int]$lines[0].Trim()
        Version    = $lines[1].Trim()
        Executable = $lines[2].Trim()
    }
}

function Test-Elevated {
    try {
        $identity = [Security.Principal.WindowsIdentity]::GetCurrent()
        $principal = New-Object Security.Principal.WindowsPrincipal $identity
        return $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
    }
    catch {
        return $false
    }
}

function Install-Envcheck {
    param([Parameter(Mandatory = $true)][string]$Python)
    Write-Step "Installing envcheck from $Source"
    $code = Invoke-Tool -FilePath $Python -ArgumentList @(
        '-m', 'pip', 'install', '--disable-pip-version-check', '--upgrade', $Source)
    if ($code -ne 0) {
        Stop-Setup "pip could not install envcheck from $Source (exit code $code); see its output above."
    }
}

function New-Venv {
    param([Parameter(Mandatory = $true)][string]$Python, [switch]$Clear)
    $arguments = @('-m', 'venv')
    if ($Clear) {
        $arguments += '--clear'
    }
    $arguments += $VenvDir
    $code = Invoke-Tool -FilePath $Python -ArgumentList $arguments
    if ($code -ne 0) {
        Stop-Setup "$Python could not create the venv $VenvDir (exit code $code)."
    }
}

function Test-Wsl {
    param([Parameter(Mandatory = $true)][string]$Python, [string[]]$Envcheck)
    $arguments = @($Envcheck) + @('setup', 'wsl-state')
    $wsl = Find-Application -Name 'wsl.exe'
    if ($null -ne $wsl) {
        # WSL_UTF8=1: newer wsl.exe prints UTF-8 instead of UTF-16LE (envcheck decodes either).
        Set-SessionVariable -Name 'WSL_UTF8' -Value '1'
        $status = Invoke-Captured -FilePath $wsl -ArgumentList @('--status') -Quiet
        $list = Invoke-Captured -FilePath $wsl -ArgumentList @('-l', '-v') -Quiet
        $listFile = Join-Path $script:WorkDir 'wsl-list.txt'
        Write-TextFile -Path $listFile -Text $list.Text
        $arguments += @(
            "--status-exit-code=$($status.ExitCode)",
            '--list', $listFile,
            "--list-exit-code=$($list.ExitCode)")
    }
    $answer = Invoke-Captured -FilePath $Python -ArgumentList $arguments
    if ($answer.ExitCode -ne 0) {
        Write-Warning "envcheck could not read the WSL state (exit code $($answer.ExitCode))."
        return
    }
    $state = $answer.Text | ConvertFrom-Json
    Write-Host "WSL: $($state.state)"
    Write-Host $state.message
}

function Invoke-Setup {
    try {
        $script:SavedConsoleEncoding = [Console]::OutputEncoding
        [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false
    }
    catch {
        Write-Warning 'Could not switch the console to UTF-8; non-ASCII names may print garbled.'
    }
    Set-SessionVariable -Name 'PYTHONUTF8' -Value '1'
    Set-SessionVariable -Name 'PYTHONIOENCODING' -Value 'utf-8'

    if (Test-Elevated) {
        Write-Warning ("This PowerShell runs as Administrator. The setup never needs that: it " +
            "writes only into the profile of the account that runs it. A normal (non-elevated) " +
            "PowerShell is the better place for it.")
    }

    $localAppData = $env:LOCALAPPDATA
    if ([string]::IsNullOrEmpty($localAppData)) {
        $localAppData = [Environment]::GetFolderPath('LocalApplicationData')
    }
    if ([string]::IsNullOrEmpty($localAppData)) {
        Stop-Setup 'This account has no local application data folder (LOCALAPPDATA); pass -VenvDir.'
    }
    if ([string]::IsNullOrEmpty($VenvDir)) {
        $script:VenvDir = Join-Path $localAppData 'envcheck\venv'
    }
    $script:VenvDir = Get-FullPath -Path $VenvDir
    if ([string]::IsNullOrEmpty($Source)) {
        if ([string]::IsNullOrEmpty($PSScriptRoot)) {
            Stop-Setup 'Run this file as a script (powershell -File ...), or pass -Source.' 2
        }
        $script:Source = [System.IO.Path]::GetDirectoryName($PSScriptRoot)
    }
    $script:Source = Get-FullPath -Path $Source
    if (-not (Test-Path -LiteralPath (Join-Path $Source 'pyproject.toml') -PathType Leaf)) {
        Stop-Setup "-Source $Source is not an envcheck source tree (it has no pyproject.toml)." 2
    }
    $script:WorkDir = Join-Path $localAppData ('envcheck\setup-' + [guid]::NewGuid().ToString('N'))
    [System.IO.Directory]::CreateDirectory($script:WorkDir) | Out-Null

    Write-Step 'Finding Python through the py launcher'
    $py = Find-Application -Name 'py.exe'
    if ($null -eq $py) {
        Stop-Setup "The py launcher (py.exe) was not found: $Install64Bit."
    }
    $bootstrap = Get-PythonInfo -FilePath $py -Selector @('-3-64')
    if ($null -eq $bootstrap -or $bootstrap.Bits -ne 64) {
        $any = Get-PythonInfo -FilePath $py -Selector @('-3')
        if ($null -eq $any) {
            Stop-Setup "The py launcher found no Python 3: $Install64Bit."
        }
        if ($any.Bits -ne 64) {
            Stop-Setup "Only 32-bit Python was found ($($any.Executable)). ${Refuse32Bit}: $Install64Bit."
        }
        $bootstrap = $any
    }
    if ([version]$bootstrap.Version -lt [version]'3.9') {
        Stop-Setup "envcheck needs 64-bit Python 3.9 or newer; the newest here is $($bootstrap.Version) ($($bootstrap.Executable)): $Install64Bit."
    }
    Write-Host "Python $($bootstrap.Version) (64-bit): $($bootstrap.Executable)"

    Write-Step "Virtual environment $VenvDir"
    $venvPython = Join-Path $VenvDir 'Scripts\python.exe'
    $created = $false
    if (Test-Path -LiteralPath (Join-Path $VenvDir 'pyvenv.cfg') -PathType Leaf) {
        Write-Host 'Reusing the existing venv.'
    }
    elseif (Test-Path -LiteralPath $VenvDir -PathType Leaf) {
        Stop-Setup "-VenvDir $VenvDir is a file, not a folder." 2
    }
    elseif ((Test-Path -LiteralPath $VenvDir) -and
        @(Get-ChildItem -LiteralPath $VenvDir -Force).Count -gt 0) {
        Stop-Setup "-VenvDir $VenvDir exists, is not empty and is no venv: choose another folder." 2
    }
    else {
        New-Venv -Python $bootstrap.Executable
        $created = $true
    }
    $venvInfo = Get-PythonInfo -FilePath $venvPython
    if ($null -eq $venvInfo) {
        Stop-Setup "The venv's interpreter $venvPython does not run; delete $VenvDir and run this script again."
    }
    if ($venvInfo.Bits -ne 64) {
        Stop-Setup "The venv $VenvDir uses a 32-bit Python. ${Refuse32Bit}: delete that folder (or pass another -VenvDir) and run this script again."
    }
    Install-Envcheck -Python $venvPython
    $envcheck = @('-X', 'utf8', '-m', 'envcheck')
    $tensorflowArgs = @()
    if (-not [string]::IsNullOrEmpty($Tensorflow)) {
        $tensorflowArgs = @('--tensorflow', $Tensorflow)
    }

    Write-Step 'Choosing the Python for TensorFlow'
    $listing = Invoke-Captured -FilePath $py -ArgumentList @('-0p')
    if ($listing.ExitCode -ne 0) {
        $listing = Invoke-Captured -FilePath $py -ArgumentList @('--list-paths')
    }
    $listFile = Join-Path $script:WorkDir 'py-list.txt'
    Write-TextFile -Path $listFile -Text $listing.Text
    $answer = Invoke-Captured -FilePath $venvPython -ArgumentList (
        @($envcheck) + @('setup', 'windows-python', '--py-list', $listFile) + $tensorflowArgs)
    if ($answer.ExitCode -ne 0 -and $answer.ExitCode -ne 1) {
        Stop-Setup "envcheck setup windows-python failed (exit code $($answer.ExitCode))." $answer.ExitCode
    }
    $choice = $answer.Text | ConvertFrom-Json
    Write-Host $choice.message
    if ($null -eq $choice.chosen) {
        Stop-Setup 'No installed Python can hold the TensorFlow venv (see above).'
    }
    if ($choice.chosen.version -ne $venvInfo.Version) {
        $chosenInfo = $null
        if ($choice.chosen.path -ne '' -and (Test-Path -LiteralPath $choice.chosen.path -PathType Leaf)) {
            $chosenInfo = Get-PythonInfo -FilePath $choice.chosen.path
        }
        if ($null -eq $chosenInfo) {
            $chosenInfo = Get-PythonInfo -FilePath $py -Selector @($choice.chosen.launcher_arg)
        }
        if ($null -eq $chosenInfo) {
            Stop-Setup "Python $($choice.chosen.version) ($($choice.chosen.launcher_arg)) does not run."
        }
        if ($chosenInfo.Bits -ne 64) {
            Stop-Setup "$($chosenInfo.Executable) is 32-bit. ${Refuse32Bit}: $Install64Bit."
        }
        if ($created) {
            Write-Step "Rebuilding the venv with Python $($chosenInfo.Version)"
            New-Venv -Python $chosenInfo.Executable -Clear
            $venvInfo = Get-PythonInfo -FilePath $venvPython
            if ($null -eq $venvInfo -or $venvInfo.Bits -ne 64) {
                Stop-Setup "The rebuilt venv $VenvDir does not run a 64-bit Python; delete it and run this script again."
            }
            Install-Envcheck -Python $venvPython
        }
        else {
            Write-Warning ("The existing venv uses Python $($venvInfo.Version); envcheck would " +
                "choose Python $($chosenInfo.Version). To switch, delete $VenvDir (or pass another " +
                "-VenvDir) and run this script again. Continuing with Python $($venvInfo.Version).")
        }
    }

    Write-Step 'envcheck doctor'
    $code = Invoke-Tool -FilePath $venvPython -ArgumentList (@($envcheck) + @('doctor'))
    if ($code -gt 1) {
        Write-Warning "envcheck doctor could not finish (exit code $code)."
    }

    if ($choice.wsl2.advised) {
        Write-Step 'The GPU needs WSL2'
        Write-Host $WslExplanation
        if ($null -ne $choice.wsl2.explanation) {
            Write-Host $choice.wsl2.explanation
        }
        Test-Wsl -Python $venvPython -Envcheck $envcheck
    }
    if (@($choice.advice).Count -gt 0) {
        Write-Host ''
        Write-Host 'What would change the answer:'
        foreach ($item in @($choice.advice)) {
            Write-Host "  - $item"
        }
    }

    Write-Step 'Installing TensorFlow'
    $what = 'the recommended TensorFlow'
    if ($null -ne $choice.tensorflow) {
        $what = "TensorFlow $($choice.tensorflow.version) ($($choice.tensorflow.status))"
    }
    $confirmed = [bool]$Yes
    if (-not $confirmed) {
        if ([Console]::IsInputRedirected) {
            Write-Host 'No terminal to ask on: nothing installed. Pass -Yes to install without asking.'
        }
        else {
            $reply = ''
            try {
                $reply = Read-Host -Prompt "Install $what into $VenvDir with envcheck install? [y/N]"
            }
            catch {
                $reply = ''
            }
            $confirmed = ($reply.Trim() -match '^(?i:y|yes)$')
        }
    }
    if ($confirmed) {
        $code = Invoke-Tool -FilePath $venvPython -ArgumentList (
            @($envcheck) + @('install', '--yes') + $tensorflowArgs)
        if ($code -ne 0) {
            Stop-Setup "envcheck install did not finish (exit code $code); see its output above." $code
        }
    }
    elseif (-not [Console]::IsInputRedirected) {
        Write-Host 'Nothing was installed.'
    }

    Write-Step 'Done'
    $activate = (Join-Path $VenvDir 'Scripts\Activate.ps1').Replace("'", "''")
    Write-Host 'Use the environment in PowerShell with:'
    Write-Host "  & '$activate'"
    Write-Host '  envcheck doctor'
}

$exitCode = 0
try {
    Invoke-Setup
}
catch {
    if ($null -ne $script:StopCode) {
        [Console]::Error.WriteLine('setup-windows: ' + $_.Exception.Message)
        $exitCode = $script:StopCode
    }
    else {
        [Console]::Error.WriteLine('setup-windows: unexpected error: ' + $_.Exception.Message)
        [Console]::Error.WriteLine($_.ScriptStackTrace)
        $exitCode = 3
    }
}
finally {
    Restore-Session
}
exit $exitCode
