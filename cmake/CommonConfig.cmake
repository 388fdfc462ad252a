# One interface target carries the language standard, the warnings and the Qt
# defines for every target (after qBittorrent's CommonConfig.cmake).
option(OPSDECK_WERROR "Treat warnings as errors" OFF)
option(OPSDECK_PCH "Use precompiled headers for the Qt-heavy targets" ON)

add_library(opsdeck_common INTERFACE)
target_compile_features(opsdeck_common INTERFACE cxx_std_20)
set(CMAKE_CXX_EXTENSIONS OFF)
target_compile_options(opsdeck_common INTERFACE -Wall -Wextra -Wpedantic
                       $<$<BOOL:${OPSDECK_WERROR}>:-Werror>)
target_compile_definitions(opsdeck_common INTERFACE
  QT_NO_CAST_FROM_ASCII
  QT_NO_CAST_TO_ASCII
  QT_NO_CAST_FROM_BYTEARRAY
  QT_NO_URL_CAST_FROM_STRING
  QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
  QT_NO_FOREACH
  QT_NO_KEYWORDS
  QT_USE_QSTRINGBUILDER
  QT_STRICT_ITERATORS
  QT_DISABLE_DEPRECATED_BEFORE=0x060400)

# Precompiled Qt headers: the Qt-heavy targets reuse one PCH so a 2-core
# machine builds the tree in minutes.
function(opsdeck_use_pch target)
  if(OPSDECK_PCH)
    target_precompile_headers(${target} PRIVATE
      <QtCore/QObject> <QtCore/QString> <QtCore/QVector> <QtCore/QHash>
      <QtCore/QDateTime> <QtCore/QTimer> <QtCore/QUrl>
      <string> <vector> <memory> <optional>)
  endif()
endfunction()
